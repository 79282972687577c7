package link

import (
	"maps"
	"math"
	"slices"
	"sort"
	"strings"
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

// scored is one table's linking evidence.
type scored struct {
	score float64
	why   []Reason
	cols  map[int][]Reason
}

// Link chooses the tables for a question (and its evidence).
func (db *Database) Link(question, evidence string, opt Options) *Selection {
	opt = opt.withDefaults()
	sc := db.score(terms(question+" \n "+evidence), opt)
	rank := db.choose(sc, opt)
	n := len(db.Schema.Tables)
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

// score weighs each table's evidence in the question's terms q: its
// name's and its columns' names, and values of its columns.
func (db *Database) score(q []string, opt Options) []scored {
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
		// In word order, so the sum, and the ranking of near ties, is
		// the same on every run.
		for _, w := range slices.Sorted(maps.Keys(best)) {
			s.score += best[w]
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
	return sc
}

// choose ranks the tables to keep, best first: those near the best score,
// then their foreign-key neighbours, then the best of the rest up to the
// minimum. Reasons for the last two are added to sc.
func (db *Database) choose(sc []scored, opt Options) []int {
	n := len(sc)
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
	// when it has evidence of its own, when it is the bridge between two
	// linked tables, or when the linked table is among the best (the
	// question is most surely about it, and its lookup tables are what it
	// joins). Adding every neighbour of every linked table would pull a
	// hub's whole neighbourhood into each prompt.
	linked := append([]int(nil), rank...)
	isLinked := map[int]bool{}
	for _, i := range linked {
		isLinked[i] = true
	}
	nb := db.neighbours()
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
	return rank
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
