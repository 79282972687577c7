package link

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/schema"
)

// Options tune the linker. The zero value is the default linker.
type Options struct {
	// MinTables is the fewest tables a linked schema keeps (default 3, or
	// every table of a smaller database): a question that names nothing
	// still gets the tables that matched best.
	MinTables int
	// MaxChars, when positive, is a budget on the rendered schema's
	// characters: tables are added best first while they fit, and a table
	// that does not fit is dropped whole. The best table is always kept.
	MaxChars int
	// NoValues turns value matching off (the ablation of names alone).
	NoValues bool
	// ValuesPerColumn bounds the distinct values indexed per text column
	// (default DefaultValuesPerColumn).
	ValuesPerColumn int
	// Keep is the share of the best table's score another table needs to
	// be kept on its own (default 0.2).
	Keep float64
}

// DefaultMinTables is Options.MinTables's default.
const DefaultMinTables = 3

// DefaultKeep is Options.Keep's default: tables scoring at least a fifth
// of the best one's score. An absolute threshold would keep every weakly
// matching table of a wide schema; a relative one keeps the cluster at the
// top. A fifth is where every gold table is kept for at least 97% of the
// questions of each measured set (docs/link.md).
const DefaultKeep = 0.2

// hubShare is the share of the best score at which a linked table brings
// every foreign-key neighbour along, evidence or not.
const hubShare = 0.8

func (o Options) withDefaults() Options {
	if o.MinTables <= 0 {
		o.MinTables = DefaultMinTables
	}
	if o.ValuesPerColumn <= 0 {
		o.ValuesPerColumn = DefaultValuesPerColumn
	}
	if o.Keep <= 0 {
		o.Keep = DefaultKeep
	}
	return o
}

// Database is one database prepared for linking: its schema with the
// sample values prompts show, each table's rendered DDL, the name terms,
// the foreign-key graph and the value index. Build it once per database
// (Prepare); it is read-only afterwards and safe for concurrent use.
type Database struct {
	Schema *sqlgym.Schema
	// TableText is each table's DDL as schema.Render writes it; the full
	// schema text is their concatenation.
	TableText []string
	FullChars int

	tables []tableTerms
	idf    map[string]float64
	edges  []edge
	values *valueIndex
}

type tableTerms struct {
	name []string   // the table name's terms
	cols [][]string // each column name's terms
}

// Prepare describes the engine's database (with prompt sample values),
// renders each table and, unless values is false, builds the value index.
func Prepare(ctx context.Context, eng sqlgym.Engine, samples int, values bool, perColumn int) (*Database, error) {
	s, err := schema.Load(ctx, eng, samples)
	if err != nil {
		return nil, err
	}
	db := NewDatabase(s)
	if values {
		if db.values, err = buildValues(ctx, eng, s, perColumn); err != nil {
			return nil, err
		}
	}
	return db, nil
}

// NewDatabase prepares a described schema without a value index.
func NewDatabase(s *sqlgym.Schema) *Database {
	db := &Database{Schema: s, idf: map[string]float64{}}
	df := map[string]int{}
	for i := range s.Tables {
		t := &s.Tables[i]
		text := schema.Render(&sqlgym.Schema{Dialect: s.Dialect, Tables: []sqlgym.Table{*t}}, schema.Options{})
		db.TableText = append(db.TableText, text)
		db.FullChars += len(text)
		tt := tableTerms{name: terms(t.Name)}
		seen := map[string]bool{}
		for _, w := range tt.name {
			seen[w] = true
		}
		for _, c := range t.Columns {
			ct := terms(c.Name)
			tt.cols = append(tt.cols, ct)
			for _, w := range ct {
				seen[w] = true
			}
		}
		for w := range seen {
			df[w]++
		}
		db.tables = append(db.tables, tt)
	}
	// A word in the names of every table ("id", a shared prefix) links
	// nothing; one in a single table links it strongly.
	n := float64(len(s.Tables))
	for w, d := range df {
		db.idf[w] = math.Log(1 + n/float64(d))
	}
	db.edges = foreignKeys(s)
	return db
}

// IndexedValues reports how many text columns and distinct values the
// value index holds (0, 0 without one).
func (db *Database) IndexedValues() (columns, values int) {
	if db.values == nil {
		return 0, 0
	}
	return db.values.Columns, db.values.Values
}

// Reason says why a table or column was kept.
type Reason struct {
	// Kind is "name" (a question word in the name), "phrase" (the whole
	// multi-word name in the question), "value" (a question phrase is one
	// of the column's values), "foreign_key" (one hop from a linked
	// table), "min_tables" (kept to reach the minimum) or "key" (a primary
	// or foreign key column of a kept table).
	Kind string `json:"kind"`
	// Text is the matched word, phrase or value, or for a foreign key the
	// linked table it leads from.
	Text   string `json:"text,omitempty"`
	Column string `json:"column,omitempty"`
}

// String renders a reason for people: value 'Paris' in city.name.
func (r Reason) String() string {
	switch r.Kind {
	case "value":
		return fmt.Sprintf("value '%s' in %s", r.Text, r.Column)
	case "name", "phrase":
		if r.Column != "" {
			return fmt.Sprintf("%s %q in column %s", r.Kind, r.Text, r.Column)
		}
		return fmt.Sprintf("%s %q in table name", r.Kind, r.Text)
	case "foreign_key":
		return "foreign key with " + r.Text
	}
	return r.Kind
}

// Column is a column the linker marks as relevant in a kept table.
type Column struct {
	Name string   `json:"name"`
	Why  []Reason `json:"why,omitempty"`
}

// Table is one kept table.
type Table struct {
	Name    string   `json:"name"`
	Score   float64  `json:"score"`
	Why     []Reason `json:"why,omitempty"`
	Columns []Column `json:"columns,omitempty"`
	Chars   int      `json:"chars"`
}

// Selection is the schema chosen for one question.
type Selection struct {
	Mode   Mode    `json:"mode"`
	Tables []Table `json:"tables"`
	// Dropped are linked tables the character budget left out.
	Dropped     []string `json:"dropped,omitempty"`
	TotalTables int      `json:"total_tables"`
	Chars       int      `json:"chars"`
	FullChars   int      `json:"full_chars"`
	// OverBudget says even the best table alone is past MaxChars.
	OverBudget bool `json:"over_budget,omitempty"`
}

// TableNames are the kept tables' names, in schema order.
func (s *Selection) TableNames() []string {
	out := make([]string, len(s.Tables))
	for i, t := range s.Tables {
		out[i] = t.Name
	}
	return out
}

// Text is the selection's schema text: the kept tables' DDL in schema
// order, as schema.Render writes a subset.
func (db *Database) Text(sel *Selection) string {
	keep := map[string]bool{}
	for _, t := range sel.Tables {
		keep[strings.ToLower(t.Name)] = true
	}
	var b strings.Builder
	for i, t := range db.Schema.Tables {
		if keep[strings.ToLower(t.Name)] {
			b.WriteString(db.TableText[i])
		}
	}
	return b.String()
}

// FullText is every table's DDL: what prompts show without linking.
func (db *Database) FullText() string { return strings.Join(db.TableText, "") }

// scored is one table's linking evidence.
type scored struct {
	score float64
	why   []Reason
	cols  map[int][]Reason
}

// Link chooses the tables for a question (and its evidence).
func (db *Database) Link(question, evidence string, opt Options) *Selection {
	opt = opt.withDefaults()
	q := terms(question + " \n " + evidence)
	qset := map[string]bool{}
	for _, w := range q {
		if isContent(w) {
			qset[w] = true
		}
	}
	n := len(db.Schema.Tables)
	sc := make([]scored, n)
	for i := range sc {
		sc[i].cols = map[int][]Reason{}
	}
	for i, tt := range db.tables {
		t := &db.Schema.Tables[i]
		s := &sc[i]
		// Each question word counts once per table, at its best place (the
		// table's name, else a column's), so a table with five columns
		// named order_* is not five times an "order" table.
		best := map[string]float64{}
		credit := func(w string, v float64) {
			if v > best[w] {
				best[w] = v
			}
		}
		if len(tt.name) > 1 && containsPhrase(q, tt.name) {
			s.score += db.weight(tt.name)
			s.why = append(s.why, Reason{Kind: "phrase", Text: strings.Join(splitName(t.Name), " ")})
		}
		for _, w := range uniq(tt.name) {
			if qset[w] {
				credit(w, 2*db.idf[w])
				s.why = append(s.why, Reason{Kind: "name", Text: w})
			} else if g := glued(w, qset); g != "" {
				credit(g, 1.5*db.idf[w])
				s.why = append(s.why, Reason{Kind: "name", Text: g})
			}
		}
		for ci, ct := range tt.cols {
			col := t.Columns[ci].Name
			if len(ct) > 1 && containsPhrase(q, ct) {
				s.score += 0.5 * db.weight(ct)
				s.cols[ci] = append(s.cols[ci], Reason{Kind: "phrase", Text: strings.Join(splitName(col), " "), Column: t.Name + "." + col})
			}
			for _, w := range uniq(ct) {
				if qset[w] {
					credit(w, db.idf[w])
					s.cols[ci] = append(s.cols[ci], Reason{Kind: "name", Text: w, Column: t.Name + "." + col})
				} else if g := glued(w, qset); g != "" {
					credit(g, 0.75*db.idf[w])
					s.cols[ci] = append(s.cols[ci], Reason{Kind: "name", Text: g, Column: t.Name + "." + col})
				}
			}
		}
		for _, v := range best {
			s.score += v
		}
	}
	if !opt.NoValues {
		seen := map[valueMatch]bool{}
		for _, m := range db.values.lookup(q) {
			if seen[m] {
				continue // the same value named twice is one clue
			}
			seen[m] = true
			t := &db.Schema.Tables[m.col.table]
			s := &sc[m.col.table]
			// A value of several words is a rarer coincidence than one
			// word; a value many columns hold is a weaker clue.
			s.score += 2 * math.Log(1+float64(n)*m.weight) * float64(m.words+1) / 2
			s.cols[m.col.column] = append(s.cols[m.col.column], Reason{Kind: "value", Text: m.phrase, Column: t.Name + "." + t.Columns[m.col.column].Name})
		}
	}
	for i := range sc {
		for _, rs := range sc[i].cols {
			sc[i].why = append(sc[i].why, rs...)
		}
		sortReasons(sc[i].why)
	}

	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return sc[order[a]].score > sc[order[b]].score })

	kept := map[int]bool{}
	var rank []int // kept tables, best first
	keep := func(i int, r *Reason) {
		if kept[i] {
			return
		}
		kept[i] = true
		rank = append(rank, i)
		if r != nil {
			sc[i].why = append(sc[i].why, *r)
		}
	}
	top := 0.0
	if n > 0 {
		top = sc[order[0]].score
	}
	if top > 0 {
		for _, i := range order {
			if sc[i].score >= opt.Keep*top {
				keep(i, nil)
			}
		}
	}
	// One hop: a table joined by a foreign key to a linked table is kept
	// when it has evidence of its own, or when it is the bridge between
	// two linked tables. Adding every neighbour would pull a hub table's
	// whole neighbourhood into each prompt.
	linked := append([]int(nil), rank...)
	isLinked := map[int]bool{}
	for _, i := range linked {
		isLinked[i] = true
	}
	nb := db.neighbours()
	// The best tables' neighbours all come along: the question is most
	// surely about them, and their lookup tables are what it joins.
	for _, i := range linked {
		for _, j := range nb[i] {
			if kept[j] {
				continue
			}
			bridges := 0
			for _, k := range nb[j] {
				if isLinked[k] {
					bridges++
				}
			}
			if sc[j].score > 0 || bridges >= 2 || sc[i].score >= hubShare*top {
				keep(j, &Reason{Kind: "foreign_key", Text: db.Schema.Tables[i].Name})
			}
		}
	}
	for _, i := range order {
		if len(rank) >= min(opt.MinTables, n) {
			break
		}
		keep(i, &Reason{Kind: "min_tables"})
	}
	sel := &Selection{Mode: ModeLinked, TotalTables: n, FullChars: db.FullChars}
	final := map[int]bool{}
	for idx, i := range rank {
		c := len(db.TableText[i])
		if opt.MaxChars > 0 && idx > 0 && sel.Chars+c > opt.MaxChars {
			sel.Dropped = append(sel.Dropped, db.Schema.Tables[i].Name)
			continue
		}
		final[i] = true
		sel.Chars += c
	}
	sel.OverBudget = opt.MaxChars > 0 && sel.Chars > opt.MaxChars
	for i := range db.Schema.Tables {
		if final[i] {
			sel.Tables = append(sel.Tables, db.tableChoice(i, &sc[i]))
		}
	}
	return sel
}

// tableChoice is a kept table with its marked columns: those the
// question matched, and the keys a join needs.
func (db *Database) tableChoice(i int, s *scored) Table {
	t := &db.Schema.Tables[i]
	keys := map[string]bool{}
	for _, k := range t.PrimaryKey {
		keys[strings.ToLower(k)] = true
	}
	for _, fk := range t.ForeignKeys {
		for _, c := range fk.Columns {
			keys[strings.ToLower(c)] = true
		}
	}
	for _, e := range db.edges {
		if e.inferred && e.from == i {
			keys[strings.ToLower(e.col)] = true
		}
	}
	out := Table{Name: t.Name, Score: math.Round(s.score*100) / 100, Why: s.why, Chars: len(db.TableText[i])}
	for ci, c := range t.Columns {
		why := s.cols[ci]
		if keys[strings.ToLower(c.Name)] {
			why = append(why, Reason{Kind: "key"})
		}
		if len(why) > 0 {
			out.Columns = append(out.Columns, Column{Name: c.Name, Why: why})
		}
	}
	return out
}

// neighbours is the foreign-key graph as adjacency lists, both ways.
func (db *Database) neighbours() [][]int {
	nb := make([][]int, len(db.Schema.Tables))
	for _, e := range db.edges {
		nb[e.from] = append(nb[e.from], e.to)
		nb[e.to] = append(nb[e.to], e.from)
	}
	return nb
}

// weight is a multi-word name's phrase weight: its words' idf summed.
func (db *Database) weight(ts []string) float64 {
	w := 0.0
	for _, t := range uniq(ts) {
		if !stopWords[t] {
			w += db.idf[t]
		}
	}
	return w
}

func uniq(ts []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, t := range ts {
		if !seen[t] && isContent(t) {
			seen[t] = true
			out = append(out, t)
		}
	}
	return out
}

func sortReasons(rs []Reason) {
	sort.SliceStable(rs, func(a, b int) bool {
		if rs[a].Column != rs[b].Column {
			return rs[a].Column < rs[b].Column
		}
		return rs[a].Text < rs[b].Text
	})
}

// glued finds a question word inside a name word that glues several
// words with no case or underscore to split at (sbcustomer, custid): the
// question word, at least four letters, must end the name word, or begin
// it before an id suffix. "produced" must not find "production".
func glued(name string, qset map[string]bool) string {
	best := ""
	for w := range qset {
		if len(w) < 4 || len(w) >= len(name) || len(w) <= len(best) {
			continue
		}
		rest, isPrefix := strings.CutPrefix(name, w)
		if strings.HasSuffix(name, w) || isPrefix && (rest == "id" || rest == "ids" || rest == "no" || rest == "num" || rest == "code") {
			best = w
		}
	}
	return best
}
