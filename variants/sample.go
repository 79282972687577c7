package variants

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/engine/sqlite"
	"github.com/sqlgym/sqlgym/sqltext"
)

// The sampled base: a variant is built from a small database, a seeded
// sample of the original's rows closed under its keys, as the distilled
// test suites are, not from a copy of the whole file. Every candidate,
// aim trial and trim step copies and screens that base, so what
// generating costs follows the tasks, not the file; and a variant holds
// tens to hundreds of rows a table, so judging on it costs little beside
// the original, which is always judged too and so keeps every row.
//
// The base holds, of each table with more than wholeRows rows:
//   - sampleRows rows drawn at seeded random rowids (which leaves parents
//     whose children were not drawn: the childless parent a LEFT JOIN or
//     NOT IN gold needs);
//   - the rows each gold's literals select, and the rows on either side of
//     each literal (so boundary edits have rows to copy), and, for a
//     condition of a join, the rows of every joined table that meet the
//     gold's WHERE (so a join gold still returns rows);
//   - whole groups of a HAVING COUNT gold near its threshold;
//   - every row a kept row refers to through a declared or implied key
//     (package constraints), to a fixed point: no kept row is an orphan.
//
// Smaller tables are kept whole. A gold that runs deterministically on
// the original must do so on the base, and one that returns rows should
// return some: its tables grow until it does (growBase), whole at last.
// The base is the original less rows, rowids kept (sqlite.Subset), so a
// variant is still the original plus statements: each kept variant's
// statements begin with one DELETE per sampled table (baseStatements),
// counted with the thinning's.

// defaultSampleAbove is Options.SampleAbove's default: on Spider's
// world_1 (5,302 rows) and car_1 (893) a sample cost 2 to 4 near-miss
// kills each against the whole original, for a third and four fifths of
// the CPU; benchdb at 10 MB (174,260 rows) lost none for a ninth.
const defaultSampleAbove = 20_000

// Sizes of the base: tables up to wholeRows rows are kept whole; larger
// ones keep sampleRows random rows plus what the golds need, each literal
// query at most litRows rows.
const (
	wholeRows  = 200
	sampleRows = 60
	litRows    = 8
	// growRounds bounds the rounds that grow a gold's tables before they
	// are taken whole.
	growRounds = 3
)

// base is the sampled database the candidates are built on.
type base struct {
	path string
	// keep is the rowids kept of each sampled table (by schema name);
	// a table not in it is whole.
	keep map[string]map[int64]bool
	// order is the sampled tables, children before their parents.
	order []string
	// info is what the result reports.
	info BaseInfo
}

// BaseInfo is what a generation reports of its sampled base.
type BaseInfo struct {
	// Rows is the base's row count, OriginalRows the original's.
	Rows         int64 `json:"rows"`
	OriginalRows int64 `json:"original_rows"`
	// Sampled counts the tables sampled (the others are whole);
	// MaxTableRows is the most rows a sampled table keeps.
	Sampled      int `json:"sampled_tables"`
	MaxTableRows int `json:"max_table_rows"`
	// Grown lists the golds whose tables grew for the gold to run
	// deterministically and return rows on the base; Empty those still
	// returning no row on it (they return rows on the original, which is
	// always judged).
	Grown   int     `json:"grown_golds,omitempty"`
	Empty   int     `json:"empty_golds,omitempty"`
	Seconds float64 `json:"seconds"`
}

// sampleTable is one table of the original as the sampler sees it.
type sampleTable struct {
	t       *sqlgym.Table
	q       string // quoted name
	count   int64
	lo, hi  int64 // rowid range
	sampled bool
	keep    map[int64]bool
	drawn   int // random rows drawn so far
	whole   bool
}

// sampleBase writes the base of the SQLite original at src into dir, or
// returns nil when every table is small enough to keep whole (the
// original is then the base).
func (g *Generator) sampleBase(ctx context.Context, src, dir string) (*base, error) {
	start := time.Now()
	eng, err := sqlite.Open(src, sqlite.Options{PoolSize: 1})
	if err != nil {
		return nil, fmt.Errorf("sample %s: %w", g.name, err)
	}
	defer eng.Close()
	q := func(sql string) ([][]sqlgym.Value, error) {
		rs, err := eng.Query(ctx, sql, sqlgym.Limits{MaxRows: 1_000_000, MaxBytes: 1 << 34})
		if err != nil {
			return nil, err
		}
		return rs.Rows, nil
	}
	// Closed under the implied keys too, even where only declared ones
	// are kept: a sample with orphans would be a database no real one is.
	schema := g.cons.Apply(g.schema, true)
	tabs := map[string]*sampleTable{}
	var names []string
	var total int64
	for i := range schema.Tables {
		t := &schema.Tables[i]
		st := &sampleTable{t: t, q: quoteIdent(t.Name), keep: map[int64]bool{}}
		tabs[strings.ToLower(t.Name)] = st
		names = append(names, strings.ToLower(t.Name))
		rows, err := q("SELECT COUNT(*), MIN(rowid), MAX(rowid) FROM " + st.q)
		hidden := slices.ContainsFunc(t.Columns, func(c sqlgym.Column) bool {
			n := strings.ToLower(c.Name)
			return n == "rowid" || n == "oid" || n == "_rowid_"
		})
		if err != nil || hidden || len(rows) != 1 {
			// WITHOUT ROWID, or a column hides the rowid: whole.
			st.whole = true
			if rs, err := q("SELECT COUNT(*) FROM " + st.q); err == nil && len(rs) == 1 {
				total += rs[0][0].Int
			}
			continue
		}
		st.count, st.lo, st.hi = rows[0][0].Int, rows[0][1].Int, rows[0][2].Int
		total += st.count
		st.sampled = st.count > wholeRows
	}
	sampled := 0
	for _, n := range names {
		if tabs[n].sampled {
			sampled++
		}
	}
	if sampled == 0 || total < g.opt.SampleAbove {
		return nil, nil
	}
	rng := rand.New(rand.NewPCG(g.opt.Seed, 11<<32))
	for _, n := range names {
		if err := draw(ctx, q, tabs[n], sampleRows, rng); err != nil {
			return nil, err
		}
	}
	g.goldRows(q, tabs, schema)
	if err := closeKeys(q, tabs, schema); err != nil {
		return nil, err
	}
	b := &base{keep: map[string]map[int64]bool{}}
	for _, n := range names {
		if st := tabs[n]; st.sampled {
			b.order = append(b.order, st.t.Name)
		}
	}
	b.order = childrenFirst(schema, b.order)
	for round := 0; ; round++ {
		path := filepath.Join(dir, fmt.Sprintf("base_%d.sqlite", round))
		where := map[string]string{}
		for _, n := range names {
			st := tabs[n]
			if st.sampled {
				where[st.t.Name] = "rowid IN (" + rowidList(st.keep) + ")"
			}
		}
		if err := sqlite.Subset(ctx, path, src, where); err != nil {
			return nil, err
		}
		on, err := checkGolds(ctx, path, g.golds, g.opt.Limits)
		if err != nil {
			return nil, err
		}
		var short []string
		empty := 0
		for _, s := range g.golds {
			o := g.goldStates[s]
			if !o.ok {
				continue
			}
			if !on[s].ok || (o.rows > 0 && on[s].rows == 0) {
				short = append(short, s)
				if on[s].ok {
					empty++
				}
			}
		}
		// Unstable golds must be fixed; empty ones are worth a few rounds
		// (the original still judges their answers).
		unstable := len(short) - empty
		if len(short) == 0 || round >= growRounds {
			if unstable > 0 {
				// Rare (a gold whose ties depend on rows of a table it
				// does not name); the original is the base then.
				g.opt.Log("%s: %d golds not deterministic on the base even with their tables whole: the variants are built on the whole original", g.name, unstable)
				return nil, nil
			}
			b.path = path
			b.info.Empty = empty
			break
		}
		b.info.Grown += len(short)
		g.opt.Log("%s: base round %d: %d golds empty, %d unstable: growing their tables", g.name, round, empty, unstable)
		for _, s := range short {
			for tb := range readTables([]string{s}) {
				st := tabs[tb]
				if st == nil || !st.sampled {
					continue
				}
				// A gold that is not deterministic on the base gets its
				// tables whole at the last round; an empty one only more
				// rows (the original, judged too, has its rows).
				if round >= growRounds-1 && !on[s].ok {
					st.sampled = false // whole
					continue
				}
				if err := draw(ctx, q, st, sampleRows<<(round+1), rng); err != nil {
					return nil, err
				}
			}
		}
		if err := closeKeys(q, tabs, schema); err != nil {
			return nil, err
		}
		b.order = slices.DeleteFunc(b.order, func(n string) bool { return !tabs[strings.ToLower(n)].sampled })
	}
	// A table that kept every row is whole: no deletion for it; a base
	// that kept every row of every table is the original itself, and the
	// generation goes on as if nothing were sampled (the shop, whose
	// 999 golds between them need every row).
	for _, n := range names {
		if st := tabs[n]; st.sampled && int64(len(st.keep)) >= st.count {
			st.sampled = false
		}
	}
	b.order = slices.DeleteFunc(b.order, func(n string) bool { return !tabs[strings.ToLower(n)].sampled })
	if len(b.order) == 0 {
		g.opt.Log("%s: the golds need every row of the sampled tables: the variants are built on the whole original", g.name)
		return nil, nil
	}
	for _, n := range names {
		st := tabs[n]
		if !st.sampled {
			b.info.Rows += st.count
			continue
		}
		b.keep[st.t.Name] = st.keep
		b.info.Rows += int64(len(st.keep))
		b.info.Sampled++
		b.info.MaxTableRows = max(b.info.MaxTableRows, len(st.keep))
	}
	b.info.OriginalRows = total
	b.info.Seconds = time.Since(start).Seconds()
	g.opt.Log("%s: base of %d rows (%d tables sampled, at most %d rows each) from %d, in %.1fs", g.name,
		b.info.Rows, b.info.Sampled, b.info.MaxTableRows, total, b.info.Seconds)
	return b, nil
}

// draw adds up to n rows at seeded random rowids (the first rowid at or
// past a random point of the rowid range, so gaps in the rowids skew the
// draw a little, which only the seed sees).
func draw(ctx context.Context, q func(string) ([][]sqlgym.Value, error), st *sampleTable, n int, rng *rand.Rand) error {
	if !st.sampled {
		return nil
	}
	added := 0
	for try := 0; try < 3*n && added < n && len(st.keep) < int(st.count); try++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		r := st.lo + rng.Int64N(st.hi-st.lo+1)
		rows, err := q("SELECT rowid FROM " + st.q + " WHERE rowid >= " + strconv.FormatInt(r, 10) + " ORDER BY rowid LIMIT 1")
		if err != nil {
			return fmt.Errorf("sample %s: %w", st.t.Name, err)
		}
		if len(rows) == 1 && !st.keep[rows[0][0].Int] {
			st.keep[rows[0][0].Int] = true
			added++
		}
	}
	st.drawn += added
	return nil
}

// goldRows adds the rows the golds' literals and thresholds point at. A
// query that does not run (a literal of another type, an alias the
// condition's text needs) adds nothing: these rows only help.
func (g *Generator) goldRows(q func(string) ([][]sqlgym.Value, error), tabs map[string]*sampleTable, schema *sqlgym.Schema) {
	add := func(st *sampleTable, sql string) {
		rows, err := q(sql)
		if err != nil {
			return
		}
		for _, r := range rows {
			for _, v := range r {
				if !v.IsNull() {
					st.keep[v.Int] = true
				}
			}
		}
	}
	lim := " LIMIT " + strconv.Itoa(litRows)
	for _, gold := range g.golds {
		for _, pq := range provenance(gold) {
			if st := tabs[strings.ToLower(pq.table)]; st != nil && st.sampled {
				add(st, pq.sql)
			}
		}
	}
	comps, ths := compsOf(g.golds, schema)
	for _, c := range comps {
		st := tabs[strings.ToLower(c.Table)]
		if st == nil {
			continue
		}
		col := quoteIdent(c.Column)
		if st.sampled {
			switch c.Op {
			case "=", "<", "<=", ">", ">=", "!=", "<>":
				add(st, "SELECT rowid FROM "+st.q+" WHERE "+col+" = "+c.Literal+lim)
				add(st, "SELECT rowid FROM "+st.q+" WHERE "+col+" > "+c.Literal+" ORDER BY "+col+lim)
				add(st, "SELECT rowid FROM "+st.q+" WHERE "+col+" < "+c.Literal+" ORDER BY "+col+" DESC"+lim)
			case "LIKE", "like":
				add(st, "SELECT rowid FROM "+st.q+" WHERE "+col+" LIKE "+c.Literal+lim)
			}
		}
		cond := c.Cond
		if cond == "" {
			continue
		}
		where := "(" + cond + ")"
		if strings.TrimSpace(c.Others) != "" {
			where += " AND (" + c.Others + ")"
		}
		if c.From == "" {
			if st.sampled {
				add(st, "SELECT rowid FROM "+st.q+" WHERE "+where+lim)
			}
			continue
		}
		// A join: the rows of every table in it that meet the WHERE.
		for _, a := range joinedTables(c.From) {
			at := tabs[strings.ToLower(a.table)]
			if at == nil || !at.sampled {
				continue
			}
			add(at, "SELECT "+a.ref+".rowid FROM "+c.From+" WHERE "+where+lim)
		}
	}
	for _, th := range ths {
		st := tabs[strings.ToLower(th.Table)]
		if st == nil || !st.sampled || th.GroupBy == "" {
			continue
		}
		w := ""
		if strings.TrimSpace(th.Others) != "" {
			w = " WHERE " + th.Others
		}
		gb := quoteIdent(th.GroupBy)
		// Whole groups nearest the threshold, either side: a few rows
		// each, so what a group's size is on the base is its size.
		for _, cmp := range []string{">=", "<"} {
			order := "COUNT(*)"
			if cmp == "<" {
				order += " DESC"
			}
			add(st, "SELECT rowid FROM "+st.q+" WHERE "+gb+" IN (SELECT "+gb+" FROM "+st.q+w+" GROUP BY "+gb+
				" HAVING COUNT(*) "+cmp+" "+strconv.FormatInt(th.N, 10)+" ORDER BY "+order+", "+gb+" LIMIT 2) LIMIT "+strconv.FormatInt(4*th.N+8, 10))
		}
	}
}

// joinedTable is one table of a FROM clause and the name the query gives it.
type joinedTable struct{ table, ref string }

// joinedTables reads the tables of a FROM clause: a name after FROM, JOIN or
// a comma, then its alias if one follows (with or without AS).
func joinedTables(from string) []joinedTable {
	var toks []sqltext.Token
	for _, t := range sqltext.Tokens(from) {
		if t.Kind != sqltext.Space && t.Kind != sqltext.Comment {
			toks = append(toks, t)
		}
	}
	name := func(t sqltext.Token) (string, bool) {
		switch t.Kind {
		case sqltext.Word:
			return t.Text, !keywordAfterTable[strings.ToUpper(t.Text)]
		case sqltext.QuotedIdent:
			return strings.Trim(t.Text, "\"`[]"), true
		}
		return "", false
	}
	var out []joinedTable
	expect := true // the next name is a table
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		up := strings.ToUpper(t.Text)
		switch {
		case t.Text == "," || up == "JOIN":
			expect = true
			continue
		case t.Text == "(":
			expect = false
			continue
		}
		if !expect {
			continue
		}
		tb, ok := name(t)
		if !ok {
			continue
		}
		ref := quoteIdent(tb)
		j := i + 1
		if j < len(toks) && strings.EqualFold(toks[j].Text, "AS") {
			j++
		}
		if j < len(toks) {
			if al, ok := name(toks[j]); ok {
				ref = quoteIdent(al)
				i = j
			}
		}
		out = append(out, joinedTable{table: tb, ref: ref})
		expect = false
	}
	return out
}

// keywordAfterTable are the words that may follow a table in a FROM
// clause and are not its alias.
var keywordAfterTable = map[string]bool{"ON": true, "JOIN": true, "INNER": true, "LEFT": true, "RIGHT": true, "FULL": true,
	"OUTER": true, "CROSS": true, "NATURAL": true, "USING": true, "WHERE": true, "AS": true}

// closeKeys adds, to a fixed point, every row a kept row refers to
// through a foreign key: a child table's kept rows (every row when it is
// whole) keep their parents.
func closeKeys(q func(string) ([][]sqlgym.Value, error), tabs map[string]*sampleTable, schema *sqlgym.Schema) error {
	for changed := true; changed; {
		changed = false
		for i := range schema.Tables {
			t := &schema.Tables[i]
			child := tabs[strings.ToLower(t.Name)]
			for _, fk := range t.ForeignKeys {
				parent := tabs[strings.ToLower(fk.RefTable)]
				if parent == nil || !parent.sampled {
					continue
				}
				refs := fk.RefColumns
				if len(refs) == 0 {
					refs = parent.t.PrimaryKey
				}
				if len(refs) != len(fk.Columns) || len(refs) == 0 {
					continue
				}
				var pc, cc []string
				for k := range refs {
					pc, cc = append(pc, quoteIdent(refs[k])), append(cc, quoteIdent(fk.Columns[k]))
				}
				inner := "SELECT " + strings.Join(cc, ", ") + " FROM " + child.q
				if child.sampled {
					inner += " WHERE rowid IN (" + rowidList(child.keep) + ")"
				}
				lhs := pc[0]
				if len(pc) > 1 {
					lhs = "(" + strings.Join(pc, ", ") + ")"
				}
				rows, err := q("SELECT rowid FROM " + parent.q + " WHERE " + lhs + " IN (" + inner + ")")
				if err != nil {
					return fmt.Errorf("sample: parents of %s in %s: %w", t.Name, fk.RefTable, err)
				}
				for _, r := range rows {
					if id := r[0].Int; !parent.keep[id] {
						parent.keep[id] = true
						changed = true
					}
				}
			}
		}
	}
	return nil
}

// rowidList is the set's rowids in order, comma-separated ("NULL" for
// none, which selects nothing).
func rowidList(set map[int64]bool) string {
	if len(set) == 0 {
		return "NULL"
	}
	ids := make([]int64, 0, len(set))
	for id := range set {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	var b strings.Builder
	for i, id := range ids {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.FormatInt(id, 10))
	}
	return b.String()
}

// childrenFirst orders tables so that a table comes before every table it
// refers to (a cycle is cut where it closes).
func childrenFirst(schema *sqlgym.Schema, names []string) []string {
	in := map[string]bool{}
	for _, n := range names {
		in[strings.ToLower(n)] = true
	}
	refBy := map[string]int{} // parent -> children in names left
	for _, n := range names {
		t := schema.Table(n)
		for _, fk := range t.ForeignKeys {
			if p := strings.ToLower(fk.RefTable); in[p] && p != strings.ToLower(n) {
				refBy[p]++
			}
		}
	}
	var out []string
	left := slices.Clone(names)
	for len(left) > 0 {
		pick := slices.IndexFunc(left, func(n string) bool { return refBy[strings.ToLower(n)] == 0 })
		if pick < 0 {
			pick = 0
		}
		n := left[pick]
		left = slices.Delete(left, pick, pick+1)
		out = append(out, n)
		for _, fk := range schema.Table(n).ForeignKeys {
			if p := strings.ToLower(fk.RefTable); in[p] && p != strings.ToLower(n) {
				refBy[p]--
			}
		}
	}
	return out
}

// baseStatements are the deletions that make the original the base: one
// per sampled table, children first, naming the rows kept.
func (b *base) statements() []string {
	var out []string
	for _, n := range b.order {
		out = append(out, "DELETE FROM "+quoteIdent(n)+" WHERE rowid NOT IN ("+rowidList(b.keep[n])+")")
	}
	return out
}

// deleted is the original rows the base leaves out.
func (b *base) deleted() int { return int(b.info.OriginalRows - b.info.Rows) }
