package author

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/constraints"
)

// Synth is the offline teacher: it samples golds from a database's schema,
// foreign-key graph and real values, and words each as a question from
// templates. The same rng state gives the same candidates.
type Synth struct {
	p      *profile
	levels []string
	gens   map[string][]genFunc
}

var _ Teacher = (*Synth)(nil)

type genFunc func(g *gen) (Candidate, bool)

// NewSynthKeys profiles the database behind eng (a few queries per column:
// distinct counts, spread samples, value frequencies, extremes) and
// returns a synth teacher for it. s is the database's schema (schema.Load);
// lex words its names, nil for the generic fallback alone. levels limits
// the complexity levels proposed; none means all. It reads the keys and
// foreign keys cons implies as if s declared them (constraints.Set.Apply): on a database that
// declares none it joins through the implied ones and never aggregates a
// key. The references by value alone that no name tells (country.capital
// holding city ids) are still marked as keys when s declares no foreign
// key.
func NewSynthKeys(ctx context.Context, eng sqlgym.Engine, s *sqlgym.Schema, cons *constraints.Set, lex *Lexicon, levels ...string) (*Synth, error) {
	return newSynth(ctx, eng, cons.Apply(s, true), lex, !declaresForeignKeys(s), levels...)
}

func declaresForeignKeys(s *sqlgym.Schema) bool {
	for _, t := range s.Tables {
		if len(t.ForeignKeys) > 0 {
			return true
		}
	}
	return false
}

func newSynth(ctx context.Context, eng sqlgym.Engine, s *sqlgym.Schema, lex *Lexicon, valueKeys bool, levels ...string) (*Synth, error) {
	if lex == nil {
		lex = &Lexicon{}
	}
	p, err := load(ctx, eng, s, lex, valueKeys)
	if err != nil {
		return nil, err
	}
	sy := &Synth{p: p, gens: map[string][]genFunc{
		LevelFilter:     {genFilterCount, genFilterList, genFilterListCmp, genFilterCountCmp, genFilterTwo, genFilterLookup, genFilterBetween},
		LevelJoin:       {genJoinCount, genJoinList, genJoinPair, genJoinTwoHop},
		LevelAggregate:  {genAggEq, genAggJoin, genAggDistinct, genAggAll},
		LevelGroupBy:    {genGroupCount, genGroupHaving, genGroupAgg, genGroupParent, genGroupHavingParent, genGroupCountFiltered},
		LevelOrderLimit: {genTopK, genArgMax, genArgMaxCat, genArgMaxParent, genArgMaxSum},
		LevelSubquery:   {genAboveAvg, genInSubquery, genNotExists, genCTEAvgPerParent, genMaxSubquery, genCTEAboveAvgParent},
		LevelDate:       {genDateYear, genDateMonth, genDateDay, genDatePerMonth, genDateDuration, genDateEarliest, genDateWeekend},
		LevelWindow:     {genWinTopPerGroup, genWinRank, genWinRunning, genWinShare, genWinDiffAvg, genWinLag},
	}}
	sy.levels = levels
	if len(sy.levels) == 0 {
		sy.levels = Levels
	}
	for _, l := range sy.levels {
		if sy.gens[l] == nil {
			return nil, fmt.Errorf("synth: unknown complexity level %q (known: %s)", l, strings.Join(Levels, ", "))
		}
	}
	return sy, nil
}

// Propose returns up to n candidates, levels in turn at random. The schema
// argument is ignored: synth works from the profile NewSynth built.
func (sy *Synth) Propose(ctx context.Context, _ *sqlgym.Schema, n int, rng *rand.Rand) ([]Candidate, error) {
	g := &gen{p: sy.p, rng: rng}
	var out []Candidate
	for tries := 0; len(out) < n && tries < 50*n; tries++ {
		if err := ctx.Err(); err != nil {
			return out, err
		}
		level := sy.levels[rng.IntN(len(sy.levels))]
		fs := sy.gens[level]
		c, ok := fs[rng.IntN(len(fs))](g)
		if !ok {
			continue
		}
		c.Complexity = level
		c.Source = SourceSynth
		c.Question = capitalize(strings.Join(strings.Fields(c.Question), " "))
		out = append(out, c)
	}
	return out, nil
}

// gen holds one proposal round's state and the helpers templates share.
type gen struct {
	p   *profile
	rng *rand.Rand
}

func (g *gen) pick(options ...string) string { return options[g.rng.IntN(len(options))] }

func pickOne[T any](g *gen, xs []T) (T, bool) {
	var zero T
	if len(xs) == 0 {
		return zero, false
	}
	return xs[g.rng.IntN(len(xs))], true
}

func (g *gen) tables(ok func(*table) bool) []*table {
	var out []*table
	for _, t := range g.p.tables {
		if t.rows > 0 && ok(t) {
			out = append(out, t)
		}
	}
	return out
}

func (t *table) colsWhere(ok func(*column) bool) []*column {
	var out []*column
	for _, c := range t.cols {
		if ok(c) {
			out = append(out, c)
		}
	}
	return out
}

func isCat(c *column) bool   { return c.cat }
func isNum(c *column) bool   { return c.number }
func isDate(c *column) bool  { return c.date && c.nonNull > 0 }
func hasLabel(t *table) bool { return len(t.label) > 0 }
func notLabel(t *table) func(*column) bool {
	return func(c *column) bool {
		for _, l := range t.label {
			if l == c {
				return false
			}
		}
		return true
	}
}

// pickTableCol picks a table with a column matching ok, and the column.
func (g *gen) pickTableCol(tok func(*table) bool, ok func(*column) bool) (*table, *column, bool) {
	ts := g.tables(func(t *table) bool { return tok(t) && len(t.colsWhere(ok)) > 0 })
	t, found := pickOne(g, ts)
	if !found {
		return nil, nil, false
	}
	c, _ := pickOne(g, t.colsWhere(ok))
	return t, c, true
}

func anyTable(*table) bool { return true }

// catValue picks a value of a category column held by at most max rows
// (max <= 0: any).
func (g *gen) catValue(c *column, max int64) (sqlgym.Value, int64, bool) {
	var vs []valCount
	for _, f := range c.freq {
		if max <= 0 || f.n <= max {
			vs = append(vs, f)
		}
	}
	f, ok := pickOne(g, vs)
	return f.v, f.n, ok
}

// above picks a threshold t among the column's largest values so that
// "> t" keeps between 1 and about max rows.
func (g *gen) above(c *column, max int) (sqlgym.Value, bool) {
	return g.tail(c.desc, max)
}

// below is above for "< t" from the smallest values.
func (g *gen) below(c *column, max int) (sqlgym.Value, bool) {
	return g.tail(c.asc, max)
}

func (g *gen) tail(vs []sqlgym.Value, max int) (sqlgym.Value, bool) {
	hi := min(max, len(vs)-1)
	if hi < 1 {
		return sqlgym.Value{}, false
	}
	k := 1 + g.rng.IntN(hi)
	v := vs[k]
	if v.String() == vs[0].String() {
		return sqlgym.Value{}, false // every row up to k ties with the extreme: nothing passes
	}
	return v, true
}

// anyValue picks one of the column's spread sample values.
func (g *gen) anyValue(c *column) (sqlgym.Value, bool) { return pickOne(g, c.sample) }

// lit is v as an SQL literal.
func lit(v sqlgym.Value) string {
	switch v.Kind {
	case sqlgym.KindInt, sqlgym.KindFloat, sqlgym.KindDecimal:
		return v.String()
	case sqlgym.KindBool:
		if v.Int != 0 {
			return "TRUE"
		}
		return "FALSE"
	case sqlgym.KindNull:
		return "NULL"
	}
	return "'" + strings.ReplaceAll(v.Str, "'", "''") + "'"
}

// say is v as a question shows it: text in single quotes, so case and
// spacing are exact, numbers and dates bare.
func say(v sqlgym.Value) string {
	if v.Kind == sqlgym.KindText && !dateRE.MatchString(v.Str) {
		return "'" + v.Str + "'"
	}
	return v.String()
}

// eq is the phrase that follows a table's plural to select rows whose
// column equals v: "from France", "with status 'delivered'".
func (g *gen) eq(c *column, v sqlgym.Value) string {
	if tpl, ok := g.p.lex.Eq[c.ref()]; ok {
		ph := strings.NewReplacer("%q", say(v), "%s", v.String(), "%S", theName(v.String())).Replace(tpl)
		return strings.Replace(ph, " of 1 stars", " of 1 star", 1)
	}
	return g.pick("whose "+c.words+" is "+say(v), "with "+c.words+" "+say(v))
}

// cmpWords words a comparison operator on a column.
func (g *gen) cmp(c *column, op string, v sqlgym.Value) string {
	switch op {
	case ">":
		return g.pick("whose "+c.words+" is greater than "+say(v), "with "+article(c.words)+" "+c.words+" above "+say(v), "whose "+c.words+" is more than "+say(v))
	case ">=":
		return g.pick("whose "+c.words+" is at least "+say(v), "with "+article(c.words)+" "+c.words+" of "+say(v)+" or more")
	case "<":
		return g.pick("whose "+c.words+" is less than "+say(v), "with "+article(c.words)+" "+c.words+" below "+say(v))
	case "<=":
		return g.pick("whose "+c.words+" is at most "+say(v), "with "+article(c.words)+" "+c.words+" of "+say(v)+" or less")
	}
	panic("author: unknown comparison " + op)
}

// col is a column reference, qualified by its table when q is set.
func col(c *column, q bool) string {
	if q {
		return ident(c.t.name) + "." + ident(c.name)
	}
	return ident(c.name)
}

func labelSQL(t *table, q bool) string {
	parts := make([]string, len(t.label))
	for i, c := range t.label {
		parts[i] = col(c, q)
	}
	return strings.Join(parts, ", ")
}

// labelPlural is "first and last names", "names", "order ids".
func labelPlural(t *table) string { return plural(t.labelWords) }

// pkWords is "customer id" for a key named like "customer_id", and
// "<singular> id" for one named just "id".
func pkWords(t *table) string {
	if t.pk == nil {
		return ""
	}
	if strings.EqualFold(t.pk.name, "id") {
		return t.singular + " id"
	}
	return t.pk.words
}

// labelIsKey reports whether a table is named by its key alone.
func labelIsKey(t *table) bool { return len(t.label) == 1 && t.label[0] == t.pk }

// labelName is how a question asks for a row's label: "id" when the label
// is the key, else the label's words ("first and last name").
func labelName(t *table) string {
	if labelIsKey(t) {
		return "id"
	}
	return t.labelWords
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// from is "FROM child JOIN parent ON child.fk = parent.pk".
func joinSQL(l *link) string {
	return fmt.Sprintf("FROM %s JOIN %s ON %s = %s", ident(l.child.name), ident(l.parent.name), col(l.fk, true), col(l.pk, true))
}

// links returns the profile's links that pass ok.
func (g *gen) linksWhere(ok func(*link) bool) []*link {
	var out []*link
	for _, l := range g.p.links {
		if l.child.rows > 0 && l.parent.rows > 0 && ok(l) {
			out = append(out, l)
		}
	}
	return out
}

// SkippedLevel is a complexity level the synth teacher cannot write for a
// database, and why.
type SkippedLevel struct {
	Level  string `json:"level"`
	Reason string `json:"reason"`
}

// Skipped lists the levels this database gives the teacher nothing to
// write from, so that a run says so instead of leaving them out silently.
func (sy *Synth) Skipped() []SkippedLevel {
	var out []SkippedLevel
	hasDate := false
	for _, t := range sy.p.tables {
		if t.rows > 0 && len(t.colsWhere(isDate)) > 0 {
			hasDate = true
		}
	}
	for _, l := range sy.levels {
		switch {
		case l == LevelJoin && len(sy.p.links) == 0:
			out = append(out, SkippedLevel{l, "no foreign keys: none declared, and no column named after another table's key (customer_id, countrycode)"})
		case l == LevelDate && !hasDate:
			out = append(out, SkippedLevel{l, "no date or timestamp column with values"})
		}
	}
	return out
}
