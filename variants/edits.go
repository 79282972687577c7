package variants

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/constraints"
	"github.com/sqlgym/sqlgym/screen"
	"github.com/sqlgym/sqlgym/sqltext"
)

// group is one change to a candidate: statements that stand or fall
// together (a new parent and the child rows pointing at it). A group that
// breaks a gold is taken out of the candidate whole.
type group struct {
	what  string
	stmts []string
	// rank orders a resize among the others of a variant: smallest
	// size first, so that a later one, looking for the group nearest its
	// own size, does not pick the group an earlier one sized.
	rank int64
}

// planner writes a candidate's changes as SQL on the original rows: every
// statement picks the row it copies or changes by a deterministic position
// (ORDER BY the key, LIMIT 1 OFFSET k), so the same seed on the same file
// gives the same variant, and the statements alone rebuild it.
type planner struct {
	schema *sqlgym.Schema
	rng    *rand.Rand
	comps  []screen.Comparison
	ths    []screen.Threshold
	serial int // makes every invented text key unique
	// dialect is the target's: SQLite when empty (see rowid and always).
	dialect sqlgym.Dialect
	// cons says what each column's data shows (a NULL, a repeated
	// value); nil lets every nullable column take NULLs and every copy
	// repeat its values. unseen does the same with cons set.
	cons   *constraints.Set
	unseen bool
}

// nullable reports whether a NULL may go into column c of t: the column
// is nullable and its data already holds one, or it is a declared foreign
// key that is not NOT NULL (constraints.Set.OptionalReference: NOT IN
// over it is then emptied by one row without parent, a real error). A
// gold whose own NOT IN such a NULL empties is not judged on that variant
// (emptiedBy), so the NULL stays for the other tasks.
func (p *planner) nullable(t *sqlgym.Table, c *sqlgym.Column) bool {
	if c.NotNull || inKey(t, c.Name) {
		return false
	}
	if p.cons == nil || p.unseen || p.cons.Facts(t.Name, c.Name).Nulls {
		return true
	}
	return p.cons.OptionalReference(t.Name, c)
}

// repeatable reports whether a copied row may repeat column c's value: a
// text column (a name) whose data never repeats a value gets a fresh one
// in a copy, so that a variant holds no namesake the real data could not.
func (p *planner) repeatable(t *sqlgym.Table, c *sqlgym.Column) bool {
	if p.cons == nil || p.unseen || !isText(c) {
		return true
	}
	f := p.cons.Facts(t.Name, c.Name)
	return f.Duplicates || f.Distinct < 2
}

// rowid is the column that names a row physically in the target: SQLite's
// and DuckDB's rowid, PostgreSQL's ctid (stable within the one
// transaction that builds a candidate, since nothing else writes there).
func (p *planner) rowid() string {
	if p.dialect == sqlgym.DialectPostgres {
		return "ctid"
	}
	if p.dialect == sqlgym.DialectMySQL {
		return mysqlRowID // numbered by mysql.EditDatabase
	}
	return "rowid"
}

// always is a WHERE condition that every row meets: PostgreSQL wants a
// boolean where SQLite and DuckDB take 1.
func (p *planner) always() string {
	if p.dialect == sqlgym.DialectPostgres {
		return "TRUE"
	}
	return "1"
}

func quoteIdent(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

// order is the deterministic row order of a table: its key, else rowid.
func (p *planner) order(t *sqlgym.Table) string {
	if len(t.PrimaryKey) == 0 {
		return p.rowid()
	}
	var ks []string
	for _, k := range t.PrimaryKey {
		ks = append(ks, quoteIdent(k))
	}
	return strings.Join(ks, ", ")
}

func isInt(c *sqlgym.Column) bool { return strings.Contains(strings.ToUpper(c.Type), "INT") }

func isText(c *sqlgym.Column) bool {
	u := strings.ToUpper(c.Type)
	return u == "" || strings.Contains(u, "CHAR") || strings.Contains(u, "TEXT") || strings.Contains(u, "CLOB")
}

func inKey(t *sqlgym.Table, name string) bool {
	return slices.ContainsFunc(t.PrimaryKey, func(k string) bool { return strings.EqualFold(k, name) })
}

func fkOf(t *sqlgym.Table, name string) *sqlgym.ForeignKey {
	for i := range t.ForeignKeys {
		fk := &t.ForeignKeys[i]
		if len(fk.Columns) == 1 && strings.EqualFold(fk.Columns[0], name) {
			return fk
		}
	}
	return nil
}

// copyRow writes an INSERT of n copies of one row of t (the k-th among
// those meeting where, in key order) with the given columns set to
// expressions and new keys, so the copies satisfy the primary key. The
// source row is read before any copy lands (SQLite materialises a SELECT
// from the table it inserts into), so the new keys are MAX+1..MAX+n.
func (p *planner) copyRow(t *sqlgym.Table, where string, k int, set map[string]string) string {
	return p.copyRows(t, where, k, 1, set)
}

func (p *planner) copyRows(t *sqlgym.Table, where string, k, n int, set map[string]string) string {
	return p.copyFrom(t, "", "", where, k, n, set)
}

// copyFrom is copyRows with the source row taken from a gold's own FROM
// clause (from, naming t as alias): a row of t that, joined as the gold
// joins it, meets where.
func (p *planner) copyFrom(t *sqlgym.Table, from, alias, where string, k, n int, set map[string]string) string {
	var cols, exprs []string
	for i := range t.Columns {
		c := &t.Columns[i]
		e := "src." + quoteIdent(c.Name)
		if v, ok := set[strings.ToLower(c.Name)]; ok {
			e = v
		} else if p.identifying(t, c) || !p.repeatable(t, c) {
			// Key columns get values no row has: the declared key, and
			// the columns that identify a row without being declared so
			// (referenced by a foreign key, or named like an id), on which
			// golds group and join as if they were unique.
			if isInt(c) {
				e = fmt.Sprintf("(SELECT COALESCE(MAX(%s), 0) FROM %s) + sg_n.i", quoteIdent(c.Name), quoteIdent(t.Name))
			} else {
				p.serial++
				e = fmt.Sprintf("src.%s || '~%d~' || sg_n.i", quoteIdent(c.Name), p.serial)
			}
		}
		cols = append(cols, quoteIdent(c.Name))
		exprs = append(exprs, e)
	}
	if where == "" {
		where = p.always()
	}
	// The gold's own condition names the table's columns bare or by the
	// table's name, both of which resolve in the inner SELECT; one naming
	// an alias fails to prepare, and Edit leaves that statement out.
	src := fmt.Sprintf("SELECT * FROM %s WHERE %s ORDER BY %s", quoteIdent(t.Name), where, p.order(t))
	if from != "" {
		var ks []string
		for _, c := range t.PrimaryKey {
			ks = append(ks, alias+"."+quoteIdent(c))
		}
		if len(ks) == 0 {
			ks = []string{alias + "." + p.rowid()}
		}
		src = fmt.Sprintf("SELECT %s.* FROM %s WHERE %s ORDER BY %s", alias, from, where, strings.Join(ks, ", "))
	}
	if p.dialect == sqlgym.DialectMySQL {
		// MySQL takes the WITH after INSERT INTO, not before.
		return fmt.Sprintf("INSERT INTO %s (%s) WITH RECURSIVE sg_n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM sg_n WHERE i < %d) "+
			"SELECT %s FROM (%s LIMIT 1 OFFSET %d) AS src, sg_n",
			quoteIdent(t.Name), strings.Join(cols, ", "), n, strings.Join(exprs, ", "), src, k)
	}
	return fmt.Sprintf("WITH RECURSIVE sg_n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM sg_n WHERE i < %d) "+
		"INSERT INTO %s (%s) SELECT %s FROM (%s LIMIT 1 OFFSET %d) AS src, sg_n",
		n, quoteIdent(t.Name), strings.Join(cols, ", "), strings.Join(exprs, ", "), src, k)
}

// identifying reports whether column c of t identifies its row: part of
// the primary key, referenced by a foreign key, or named like an id, and
// not itself a foreign key (whose values must stay existing parents).
func (p *planner) identifying(t *sqlgym.Table, c *sqlgym.Column) bool {
	if fkOf(t, c.Name) != nil {
		return false
	}
	if inKey(t, c.Name) {
		return !isCompositeFK(t, c.Name)
	}
	n := strings.ToLower(c.Name)
	if strings.HasSuffix(n, "id") {
		return true // id, customer_id, CountryId: Spider declares few keys
	}
	for _, o := range p.schema.Tables {
		for _, fk := range o.ForeignKeys {
			if !strings.EqualFold(fk.RefTable, t.Name) {
				continue
			}
			for _, rc := range fk.RefColumns {
				if strings.EqualFold(rc, c.Name) {
					return true
				}
			}
		}
	}
	return false
}

// isCompositeFK reports whether a key column of t is one of several
// columns of a composite key: a junction table's key columns are foreign
// keys, left to the caller's set.
func isCompositeFK(t *sqlgym.Table, name string) bool {
	return len(t.PrimaryKey) > 1 && fkOf(t, name) != nil
}

// updateRow sets a column of the k-th row of t (in key order).
func (p *planner) updateRow(t *sqlgym.Table, k int, col, expr string) string {
	return fmt.Sprintf("UPDATE %s SET %s = %s WHERE %s = (SELECT %s FROM %s ORDER BY %s LIMIT 1 OFFSET %d)",
		quoteIdent(t.Name), quoteIdent(col), expr, p.rowid(), p.rowid(), quoteIdent(t.Name), p.order(t), k)
}

// values returns the literals on and next to a compared literal: the
// value itself, one step either side (a day for a date, at the column's
// own date format), and, for LIKE, the pattern's fixed text.
func values(c screen.Comparison, col *sqlgym.Column) []string {
	lit := c.Literal
	if c.Kind == sqltext.Number {
		out := []string{lit}
		if n, err := strconv.ParseInt(lit, 10, 64); err == nil {
			return append(out, strconv.FormatInt(n-1, 10), strconv.FormatInt(n+1, 10))
		}
		if f, err := strconv.ParseFloat(lit, 64); err == nil {
			d := 0
			if dot := strings.IndexByte(lit, '.'); dot >= 0 {
				d = len(lit) - dot - 1
			}
			step := 1.0
			for range d {
				step /= 10
			}
			return append(out, strconv.FormatFloat(f-step, 'f', d, 64), strconv.FormatFloat(f+step, 'f', d, 64))
		}
		return out
	}
	if len(lit) < 2 || lit[0] != '\'' && lit[0] != '"' {
		return nil
	}
	body := strings.ReplaceAll(lit[1:len(lit)-1], "''", "'")
	if c.Op == "LIKE" {
		fixed := strings.NewReplacer("%", "", "_", "").Replace(body)
		return []string{sqlQuote(fixed), sqlQuote(strings.ToUpper(fixed))}
	}
	out := []string{sqlQuote(body)}
	if len(body) >= 10 {
		if d, err := time.Parse("2006-01-02", body[:10]); err == nil {
			rest := body[10:]
			prev, next := d.AddDate(0, 0, -1).Format("2006-01-02"), d.AddDate(0, 0, 1).Format("2006-01-02")
			out = append(out, sqlQuote(prev+rest), sqlQuote(next+rest))
			// A few more days either side: a gold's other conditions on
			// the date (its weekday, its month) may rule the nearest out.
			for _, k := range []int{2, 3, 4, 5, 6, 7, 31} {
				out = append(out, sqlQuote(d.AddDate(0, 0, -k).Format("2006-01-02")+rest), sqlQuote(d.AddDate(0, 0, k).Format("2006-01-02")+rest))
			}
			if rest == "" && !strings.EqualFold(baseType(col), "date") {
				out = append(out, sqlQuote(body+" 00:00:00"), sqlQuote(prev+" 23:59:59"))
			}
		}
	}
	return out
}

// past writes the value one step past expr (a column's extreme), up or
// down, in the column's own type and form: on SQLite one for a number, a
// day for a column whose values are ISO date or timestamp texts (written
// back in that same form: a date stays a date, never the integer that
// '2026-01-01' + 1 would be), and nothing for a date column of another
// form; on the typed engines a day for a timestamp (which takes no
// integer) and nothing for a type with no order to step (a boolean, a
// UUID, an interval), which keeps the copied value.
func (p *planner) past(t *sqlgym.Table, c *sqlgym.Column, expr string, up bool) (string, bool) {
	sign := "+"
	if !up {
		sign = "-"
	}
	if p.dialect == "" || p.dialect == sqlgym.DialectSQLite {
		if f, ok := p.dateForm(t, c); ok {
			if f == "" {
				return "", false
			}
			return fmt.Sprintf("strftime('%s', %s, '%s1 day')", f, expr, sign), true
		}
		return expr + " " + sign + " 1", true
	}
	bt := baseType(c)
	switch {
	case p.dialect == sqlgym.DialectMySQL && bt == "date":
		return expr + " " + sign + " INTERVAL 1 DAY", true // date + 1 is a number there (20240302)
	case strings.HasPrefix(bt, "timestamp"), bt == "datetime":
		if p.dialect == sqlgym.DialectMySQL {
			return expr + " " + sign + " INTERVAL 1 DAY", true
		}
		return expr + " " + sign + " INTERVAL '1 day'", true
	case bt == "interval", bt == "point":
		return "", false
	case bt == "date", isInt(c), strings.Contains(bt, "numeric"), strings.Contains(bt, "decimal"),
		strings.Contains(bt, "real"), strings.Contains(bt, "double"), strings.Contains(bt, "float"):
		return expr + " " + sign + " 1", true
	}
	return "", false
}

// dateForm says whether a SQLite column holds dates, and if so the
// strftime format of its values ("" for a form it cannot write back): a
// column typed DATE, TIME or TIMESTAMP, or one whose sampled value is an
// ISO date text. A date column whose values are numbers (a year, a Unix
// time) is not one: it steps by one.
func (p *planner) dateForm(t *sqlgym.Table, c *sqlgym.Column) (string, bool) {
	u := strings.ToUpper(c.Type)
	typed := strings.Contains(u, "DATE") || strings.Contains(u, "TIME")
	var sample sqlgym.Value
	if p.cons != nil {
		sample = p.cons.Facts(t.Name, c.Name).Sample
	}
	switch sample.Kind {
	case sqlgym.KindInt, sqlgym.KindFloat, sqlgym.KindDecimal:
		return "", false
	case sqlgym.KindNull:
		return "", typed
	}
	v := sample.Str
	if len(v) < 10 {
		return "", typed
	}
	if _, err := time.Parse("2006-01-02", v[:10]); err != nil {
		return "", typed
	}
	switch {
	case len(v) == 10:
		return "%Y-%m-%d", true
	case len(v) == 19 && v[10] == ' ':
		return "%Y-%m-%d %H:%M:%S", true
	case len(v) == 19 && v[10] == 'T':
		return "%Y-%m-%dT%H:%M:%S", true
	case len(v) == 16 && v[10] == ' ':
		return "%Y-%m-%d %H:%M", true
	}
	return "", true
}

func baseType(c *sqlgym.Column) string {
	t, _, _ := strings.Cut(strings.ToLower(c.Type), "(")
	return strings.TrimSpace(t)
}

func sqlQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// plan writes one candidate's groups.
func (p *planner) plan() []group {
	var gs []group
	for _, f := range p.families() {
		gs = append(gs, f...)
	}
	return gs
}

// families are plan's groups by the kind of edit, in plan's order: edits
// of one family rarely undo each other, edits of two may (a boundary row
// moved out of the filter by a relabel), so a gold's own edits are tried
// family by family (aims).
func (p *planner) families() [][]group {
	return [][]group{p.boundaries(), p.outsides(), p.groupSizes(), p.tableEdits()}
}

// boundaries writes the rows on and next to every compared literal.
func (p *planner) boundaries() []group {
	var gs []group
	// Rows on and next to every literal the golds compare against: copies
	// of rows that meet the gold's other conditions where the gold tells
	// them, else of any row, and changed rows, which keep their children.
	for _, c := range p.comps {
		t := p.schema.Table(c.Table)
		if t == nil || t.Rows == 0 {
			continue
		}
		col := column(t, c.Column)
		if col == nil || inKey(t, col.Name) || fkOf(t, col.Name) != nil {
			continue
		}
		for vi, v := range values(c, col) {
			if vi < 3 && c.Others != "" {
				// On the literal and a step either side, always a row
				// that meets the gold's other conditions, copied and
				// changed: the random choice below may miss them.
				set := map[string]string{strings.ToLower(col.Name): v}
				gs = append(gs, group{what: "boundary copy " + c.Table + "." + c.Column + "=" + v + " within",
					stmts: []string{p.copyFrom(t, c.From, c.Alias, c.Others, p.rng.IntN(3), 1, set)}})
				if c.From == "" {
					gs = append(gs, group{what: "boundary " + c.Table + "." + c.Column + "=" + v + " within",
						stmts: []string{fmt.Sprintf("UPDATE %s SET %s = %s WHERE %s = (SELECT %s FROM %s WHERE %s ORDER BY %s LIMIT 1 OFFSET %d)",
							quoteIdent(t.Name), quoteIdent(col.Name), v, p.rowid(), p.rowid(), quoteIdent(t.Name), c.Others, p.order(t), p.rng.IntN(3))}})
				}
			}
			switch p.rng.IntN(3) {
			case 0:
				gs = append(gs, group{what: "boundary " + c.Table + "." + c.Column + "=" + v,
					stmts: []string{p.updateRow(t, p.rng.IntN(int(t.Rows)), col.Name, v)}})
			default:
				where := ""
				if c.Others != "" && p.rng.IntN(4) != 0 {
					where = c.Others
				}
				gs = append(gs, group{what: "boundary copy " + c.Table + "." + c.Column + "=" + v,
					stmts: []string{p.copyFrom(t, c.From, c.Alias, where, p.rng.IntN(3), 1, map[string]string{strings.ToLower(col.Name): v})}})
			}
		}
	}
	return gs
}

// outsides writes rows that fail one condition of a gold.
func (p *planner) outsides() []group {
	var gs []group
	// Rows that fail one condition of a gold and meet its others: with
	// extreme values, they tell a dropped or flipped condition by any
	// aggregate over the table; as plain copies in bulk, by counts.
	for _, c := range p.comps {
		t := p.schema.Table(c.Table)
		if t == nil || t.Rows == 0 || c.Cond == "" {
			continue
		}
		where := "NOT (" + c.Cond + ")"
		if c.Others != "" {
			where += " AND " + c.Others
		}
		for _, dir := range []string{"MAX", "MIN"} {
			set := map[string]string{}
			for ci := range t.Columns {
				col := &t.Columns[ci]
				if inKey(t, col.Name) || fkOf(t, col.Name) != nil || isText(col) || strings.EqualFold(col.Name, c.Column) {
					continue
				}
				v, ok := p.past(t, col, fmt.Sprintf("(SELECT %s(%s) FROM %s)", dir, quoteIdent(col.Name), quoteIdent(t.Name)), dir == "MAX")
				if !ok {
					continue
				}
				set[strings.ToLower(col.Name)] = v
			}
			gs = append(gs, group{what: "extreme " + dir + " outside " + c.Cond, stmts: []string{p.copyFrom(t, c.From, c.Alias, where, p.rng.IntN(3), 1, set)}})
		}
		gs = append(gs, group{what: "bulk outside " + c.Cond, stmts: []string{p.copyFrom(t, c.From, c.Alias, where, p.rng.IntN(5), 1+p.rng.IntN(30), nil)}})
	}
	return gs
}

// groupSizes writes new groups of a HAVING threshold's size.
func (p *planner) groupSizes() []group {
	var gs []group
	// Groups of exactly the HAVING threshold's size, one less and one more.
	for _, th := range p.ths {
		t := p.schema.Table(th.Table)
		if t == nil || th.GroupBy == "" || t.Rows == 0 {
			continue
		}
		col := column(t, th.GroupBy)
		if col == nil || inKey(t, col.Name) {
			continue
		}
		for _, n := range []int64{th.N - 1, th.N, th.N + 1} {
			if n <= 0 || n > 500 {
				continue
			}
			var v string
			switch {
			case fkOf(t, col.Name) != nil:
				fk := fkOf(t, col.Name)
				parent := p.schema.Table(fk.RefTable)
				if parent == nil || parent.Rows == 0 || len(fk.RefColumns) != 1 {
					continue
				}
				v = fmt.Sprintf("(SELECT %s FROM %s ORDER BY %s LIMIT 1 OFFSET %d)", quoteIdent(fk.RefColumns[0]),
					quoteIdent(parent.Name), p.order(parent), p.rng.IntN(int(parent.Rows)))
			case isInt(col):
				v = fmt.Sprintf("(SELECT COALESCE(MAX(%s), 0) + %d FROM %s)", quoteIdent(col.Name), 1000+p.rng.IntN(1000), quoteIdent(t.Name))
			case isText(col):
				p.serial++
				v = sqlQuote(fmt.Sprintf("group %d", p.serial))
			default:
				continue
			}
			g := group{what: fmt.Sprintf("group of %d on %s.%s", n, t.Name, col.Name)}
			g.stmts = append(g.stmts, p.copyRows(t, th.Others, p.rng.IntN(3), int(n), map[string]string{strings.ToLower(col.Name): v}))
			gs = append(gs, g)
		}
	}
	return gs
}

// tableEdits writes namesakes, NULLs and extra child rows.
func (p *planner) tableEdits() []group {
	var gs []group
	for ti := range p.schema.Tables {
		t := &p.schema.Tables[ti]
		if t.Rows == 0 || strings.HasPrefix(strings.ToLower(t.Name), "sqlite_") {
			continue
		}
		n := int(t.Rows)
		// Namesakes: a copy under a new key, every other value the same;
		// a parent copied so is also a parent with no children.
		for range 1 + p.rng.IntN(3) {
			gs = append(gs, group{what: "namesake " + t.Name, stmts: []string{p.copyRow(t, "", p.rng.IntN(n), nil)}})
		}
		// NULLs in nullable columns.
		for ci := range t.Columns {
			c := &t.Columns[ci]
			if !p.nullable(t, c) || p.rng.IntN(2) == 0 {
				continue
			}
			gs = append(gs, group{what: "null " + t.Name + "." + c.Name, stmts: []string{p.updateRow(t, p.rng.IntN(n), c.Name, "NULL")}})
		}
		// Extra child rows, moved to another parent: group sizes change,
		// and some groups become single rows.
		for _, fk := range t.ForeignKeys {
			parent := p.schema.Table(fk.RefTable)
			if parent == nil || parent.Rows == 0 || len(fk.Columns) != 1 || len(fk.RefColumns) != 1 {
				continue
			}
			for range 1 + p.rng.IntN(3) {
				v := fmt.Sprintf("(SELECT %s FROM %s ORDER BY %s LIMIT 1 OFFSET %d)", quoteIdent(fk.RefColumns[0]),
					quoteIdent(parent.Name), p.order(parent), p.rng.IntN(int(parent.Rows)))
				gs = append(gs, group{what: "child " + t.Name + "->" + parent.Name,
					stmts: []string{p.copyRow(t, "", p.rng.IntN(n), map[string]string{strings.ToLower(fk.Columns[0]): v})}})
			}
		}
	}
	return gs
}

func column(t *sqlgym.Table, name string) *sqlgym.Column { return t.Column(name) }
