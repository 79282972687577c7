package constraints

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/sqlgym/sqlgym"
)

// Options tune an inference.
type Options struct {
	// SampleRows bounds the rows of a table profiled in one statement
	// (default 100,000); candidates found there are verified on the whole
	// table.
	SampleRows int
	// Limits bound each statement (a gold's limits when zero).
	Limits sqlgym.Limits
}

func (o Options) withDefaults() Options {
	if o.SampleRows <= 0 {
		o.SampleRows = 100_000
	}
	if o.Limits == (sqlgym.Limits{}) {
		o.Limits = sqlgym.Limits{}.GoldLimits()
	}
	return o
}

// Infer reads the constraints schema declares and infers those its data
// implies on the database behind eng (which schema describes).
func Infer(ctx context.Context, eng sqlgym.Engine, schema *sqlgym.Schema, opt Options) (*Set, error) {
	opt = opt.withDefaults()
	s := &Set{Columns: map[string]Facts{}}
	for ti := range schema.Tables {
		t := &schema.Tables[ti]
		if len(t.PrimaryKey) > 0 {
			s.Keys = append(s.Keys, Key{Table: t.Name, Columns: t.PrimaryKey, Declared: true})
		}
		for _, f := range t.ForeignKeys {
			s.ForeignKeys = append(s.ForeignKeys, ForeignKey{Table: t.Name, Columns: f.Columns, RefTable: f.RefTable, RefColumns: f.RefColumns, Declared: true})
		}
		if err := s.profile(ctx, eng, t, opt); err != nil {
			return nil, err
		}
	}
	for ti := range schema.Tables {
		if err := s.inferKey(ctx, eng, &schema.Tables[ti], opt); err != nil {
			return nil, err
		}
	}
	for ti := range schema.Tables {
		if err := s.inferForeignKeys(ctx, eng, schema, &schema.Tables[ti], opt); err != nil {
			return nil, err
		}
	}
	for ti := range schema.Tables {
		if err := s.inferSplitKey(ctx, eng, schema, &schema.Tables[ti], opt); err != nil {
			return nil, err
		}
	}
	for ti := range schema.Tables {
		if err := s.inferPairKey(ctx, eng, &schema.Tables[ti], opt); err != nil {
			return nil, err
		}
	}
	return s, nil
}

func quote(name string) string { return `"` + strings.ReplaceAll(name, `"`, `""`) + `"` }

// profile counts, for every column of t at once, the non-NULL and the
// distinct values among the first SampleRows rows.
func (s *Set) profile(ctx context.Context, eng sqlgym.Engine, t *sqlgym.Table, opt Options) error {
	if len(t.Columns) == 0 {
		return nil
	}
	sel := []string{"COUNT(*)"}
	for _, c := range t.Columns {
		q := quote(c.Name)
		sel = append(sel, "COUNT("+q+")", "COUNT(DISTINCT "+q+")", "MIN("+q+")")
	}
	q := fmt.Sprintf("SELECT %s FROM (SELECT * FROM %s LIMIT %d) AS sg_p", strings.Join(sel, ", "), quote(t.Name), opt.SampleRows)
	rs, err := eng.Query(ctx, q, opt.Limits)
	if err != nil {
		if sqlgym.IsInfra(err) {
			return fmt.Errorf("profile table %s: %w", t.Name, err)
		}
		// A type with no order or equality (PostgreSQL's boolean has no
		// MIN, json no DISTINCT): column by column, and a column that
		// cannot be profiled shows NULLs and repeats, so nothing rests on
		// it.
		return s.profileEach(ctx, eng, t, opt)
	}
	if len(rs.Rows) != 1 {
		return fmt.Errorf("profile table %s: %d rows", t.Name, len(rs.Rows))
	}
	r := rs.Rows[0]
	n := r[0].Int
	if t.Rows > n {
		s.Sampled = true
	}
	for i, c := range t.Columns {
		nonNull, distinct := r[1+3*i].Int, r[2+3*i].Int
		s.Columns[colKey(t.Name, c.Name)] = Facts{Nulls: nonNull < n, Duplicates: distinct < nonNull, Distinct: distinct, Sample: r[3+3*i]}
	}
	return nil
}

// unique reports whether column c of t is unique and never NULL on the
// whole table: exact, one statement.
func unique(ctx context.Context, eng sqlgym.Engine, t *sqlgym.Table, c string, opt Options) (bool, error) {
	// A number key must hold whole numbers: 1.5 is no id.
	frac := "0"
	if col := t.Column(c); col != nil && class(col) == "real" {
		frac = fmt.Sprintf("COUNT(CASE WHEN %[1]s <> FLOOR(%[1]s) THEN 1 END)", quote(c))
	}
	q := fmt.Sprintf("SELECT COUNT(*), COUNT(%[1]s), COUNT(DISTINCT %[1]s), %[3]s FROM %[2]s", quote(c), quote(t.Name), frac)
	rs, err := eng.Query(ctx, q, opt.Limits)
	if err != nil {
		if !sqlgym.IsInfra(err) {
			return false, nil // a type the check cannot read is no key
		}
		return false, fmt.Errorf("verify key %s.%s: %w", t.Name, c, err)
	}
	r := rs.Rows[0]
	return r[0].Int > 0 && r[0].Int == r[1].Int && r[1].Int == r[2].Int && r[3].Int == 0, nil
}

// inferKey implies t's primary key when it declares none: the best of its
// columns that are unique, never NULL, typed like a key, and named like
// one or first in the table.
func (s *Set) inferKey(ctx context.Context, eng sqlgym.Engine, t *sqlgym.Table, opt Options) error {
	if len(t.PrimaryKey) > 0 || t.Rows == 0 {
		return nil
	}
	type cand struct {
		col  string
		rank int
	}
	var cs []cand
	for i := range t.Columns {
		c := &t.Columns[i]
		f := s.Facts(t.Name, c.Name)
		if f.Nulls || f.Duplicates || f.Distinct == 0 || !keyType(c) {
			continue
		}
		n := norm(c.Name)
		rank := -1
		switch {
		case n == "id", n == singular(norm(t.Name))+"id", n == norm(t.Name)+"id":
			rank = 0
		case i == 0 && keyish(c.Name):
			rank = 1
		case keyish(c.Name) && !strings.HasSuffix(n, "no") && !strings.HasSuffix(n, "number"):
			rank = 2
		case i == 0 && class(c) == "int":
			rank = 3
		}
		if rank >= 0 {
			cs = append(cs, cand{c.Name, rank})
		}
	}
	sort.SliceStable(cs, func(a, b int) bool { return cs[a].rank < cs[b].rank })
	for _, c := range cs {
		ok, err := unique(ctx, eng, t, c.col, opt)
		if err != nil {
			return err
		}
		if ok {
			s.Keys = append(s.Keys, Key{Table: t.Name, Columns: []string{c.col}})
			return nil
		}
	}
	return nil
}

// inferForeignKeys implies t's foreign keys: a column named for another
// table or its key, typed compatibly, whose non-NULL values all appear in
// that table's single-column key.
func (s *Set) inferForeignKeys(ctx context.Context, eng sqlgym.Engine, schema *sqlgym.Schema, t *sqlgym.Table, opt Options) error {
	declared := map[string]bool{}
	for _, f := range t.ForeignKeys {
		for _, c := range f.Columns {
			declared[strings.ToLower(c)] = true
		}
	}
	own := s.Key(t.Name)
	for i := range t.Columns {
		c := &t.Columns[i]
		if declared[strings.ToLower(c.Name)] || !keyType(c) && class(c) != "real" {
			continue
		}
		// A table's own key named for the table (pets.petid) is its
		// identity, not a reference to a table that repeats it.
		if own != nil && len(own.Columns) == 1 && strings.EqualFold(own.Columns[0], c.Name) && stem(c.Name) == singular(norm(t.Name)) {
			continue
		}
		f := s.Facts(t.Name, c.Name)
		if f.Distinct == 0 {
			continue
		}
		type cand struct {
			parent, key string
			score       int
		}
		var cs []cand
		for _, k := range s.targets(schema) {
			if strings.EqualFold(k.Table, t.Name) {
				continue
			}
			p := schema.Table(k.Table)
			pc := p.Column(k.Columns[0])
			if pc == nil || !compatible(c, pc) {
				continue
			}
			sc := fits(c.Name, p.Name, pc.Name)
			if !k.Declared && (s.Key(p.Name) == nil || !strings.EqualFold(s.Key(p.Name).Columns[0], pc.Name)) && !strings.EqualFold(c.Name, pc.Name) {
				continue
			}
			if !keyType(c) && sc < 2 {
				continue // a number column refers to a key only by its name
			}
			if sc > 0 {
				cs = append(cs, cand{p.Name, pc.Name, sc})
			}
		}
		sort.SliceStable(cs, func(a, b int) bool { return cs[a].score > cs[b].score })
		for _, p := range cs {
			ok, err := contained(ctx, eng, t.Name, c.Name, p.parent, p.key, opt)
			if err != nil {
				return err
			}
			if ok {
				s.ForeignKeys = append(s.ForeignKeys, ForeignKey{Table: t.Name, Columns: []string{c.Name}, RefTable: p.parent, RefColumns: []string{p.key}})
				break
			}
		}
	}
	return nil
}

// contained reports whether every non-NULL value of child.col appears in
// parent.key: first on a sample of the child, then, if that holds, on the
// whole table.
func contained(ctx context.Context, eng sqlgym.Engine, child, col, parent, key string, opt Options) (bool, error) {
	for _, limit := range []string{fmt.Sprintf(" LIMIT %d", opt.SampleRows), ""} {
		q := fmt.Sprintf("SELECT COUNT(*), COUNT(CASE WHEN %[1]s NOT IN (SELECT %[2]s FROM %[3]s WHERE %[2]s IS NOT NULL) THEN 1 END) "+
			"FROM (SELECT %[1]s FROM %[4]s WHERE %[1]s IS NOT NULL%[5]s) AS sg_c",
			quote(col), quote(key), quote(parent), quote(child), limit)
		rs, err := eng.Query(ctx, q, opt.Limits)
		if err != nil {
			if !sqlgym.IsInfra(err) {
				return false, nil // types the engine will not compare
			}
			return false, fmt.Errorf("verify foreign key %s.%s -> %s.%s: %w", child, col, parent, key, err)
		}
		r := rs.Rows[0]
		if r[0].Int == 0 || r[1].Int > 0 {
			return false, nil
		}
		if r[0].Int < int64(opt.SampleRows) {
			return true, nil // the sample was the whole column
		}
	}
	return true, nil
}

// inferPairKey implies a two-column key for a table left without one
// (a junction table: singer_in_concert(concert_id, singer_id)): the first
// pair, in column order, of its foreign-key and key-named columns that is
// never NULL and never repeated; failing that, on a table of minPairRows
// or more, a foreign key and a text column never NULL.
func (s *Set) inferPairKey(ctx context.Context, eng sqlgym.Engine, t *sqlgym.Table, opt Options) error {
	if s.Key(t.Name) != nil || t.Rows < 2 {
		return nil
	}
	refers := map[string]bool{}
	for _, f := range s.ForeignKeys {
		if strings.EqualFold(f.Table, t.Name) && len(f.Columns) == 1 {
			refers[strings.ToLower(f.Columns[0])] = true
		}
	}
	var cols []string
	for i := range t.Columns {
		c := &t.Columns[i]
		if (refers[strings.ToLower(c.Name)] || keyish(c.Name) && keyType(c)) && !s.Facts(t.Name, c.Name).Nulls {
			cols = append(cols, c.Name)
		}
	}
	pairs := pairsOf(cols)
	if t.Rows >= minPairRows {
		// A child table of a parent (countrylanguage of country) whose
		// rows a foreign key and one other column tell apart: the pair is
		// its key (countrycode, language), though the other column is not
		// named like one. Only a text column that holds no dates (a
		// label: a balance or a timestamp is unique by chance), and only on tables large enough
		// that a pair unique by chance is unlikely.
		for i := range t.Columns {
			fk := t.Columns[i].Name
			if !refers[strings.ToLower(fk)] || s.Facts(t.Name, fk).Nulls {
				continue
			}
			for j := range t.Columns {
				o := t.Columns[j].Name
				f := s.Facts(t.Name, o)
				if j == i || class(&t.Columns[j]) != "text" || dateLike(f.Sample) || f.Nulls || f.Distinct < 2 {
					continue
				}
				pairs = append(pairs, [2]string{fk, o})
			}
		}
	}
	for _, pr := range pairs {
		x, y := quote(pr[0]), quote(pr[1])
		q := fmt.Sprintf("SELECT (SELECT COUNT(*) FROM %[3]s WHERE %[1]s IS NULL OR %[2]s IS NULL), "+
			"(SELECT COUNT(*) FROM (SELECT 1 AS one FROM %[3]s GROUP BY %[1]s, %[2]s HAVING COUNT(*) > 1) AS sg_d)", x, y, quote(t.Name))
		rs, err := eng.Query(ctx, q, opt.Limits)
		if err != nil {
			if !sqlgym.IsInfra(err) {
				continue
			}
			return fmt.Errorf("verify key %s(%s, %s): %w", t.Name, pr[0], pr[1], err)
		}
		if rs.Rows[0][0].Int == 0 && rs.Rows[0][1].Int == 0 {
			s.Keys = append(s.Keys, Key{Table: t.Name, Columns: []string{pr[0], pr[1]}})
			return nil
		}
	}
	return nil
}

// minPairRows is the fewest rows a table needs before a foreign key and a
// column not named like a key are taken as its key when no pair of
// key-named columns is one.
const minPairRows = 20

// dateLike reports whether a text value starts with an ISO date.
func dateLike(v sqlgym.Value) bool {
	if v.Kind != sqlgym.KindText || len(v.Str) < 10 {
		return false
	}
	_, err := time.Parse("2006-01-02", v.Str[:10])
	return err == nil
}

// pairsOf is every pair of cols, in column order.
func pairsOf(cols []string) [][2]string {
	var out [][2]string
	for a := 0; a < len(cols); a++ {
		for b := a + 1; b < len(cols); b++ {
			out = append(out, [2]string{cols[a], cols[b]})
		}
	}
	return out
}

// targets are the single columns a foreign key may refer to: single-column
// keys, declared or implied, and columns declared UNIQUE
// (car_1.model_list.model).
func (s *Set) targets(schema *sqlgym.Schema) []Key {
	var out []Key
	for _, k := range s.Keys {
		if len(k.Columns) == 1 {
			out = append(out, k)
		}
	}
	for _, t := range schema.Tables {
		for _, c := range t.Columns {
			if k := s.Key(t.Name); k != nil && len(k.Columns) == 1 && strings.EqualFold(k.Columns[0], c.Name) {
				continue
			}
			f := s.Facts(t.Name, c.Name)
			switch {
			case c.Unique:
				out = append(out, Key{Table: t.Name, Columns: []string{c.Name}, Declared: true})
			case !f.Nulls && !f.Duplicates && f.Distinct > 1 && class(&c) == "text" && !generic[norm(c.Name)]:
				// Unique in the data, not declared: a target only for a
				// child column of the very same name (car_names.model).
				out = append(out, Key{Table: t.Name, Columns: []string{c.Name}})
			}
		}
	}
	return out
}

// profileEach is profile one column at a time, for a table whose columns
// do not all take MIN and COUNT(DISTINCT).
func (s *Set) profileEach(ctx context.Context, eng sqlgym.Engine, t *sqlgym.Table, opt Options) error {
	for _, c := range t.Columns {
		q := fmt.Sprintf("SELECT COUNT(*), COUNT(%[1]s), COUNT(DISTINCT %[1]s) FROM (SELECT %[1]s FROM %[2]s LIMIT %[3]d) AS sg_p",
			quote(c.Name), quote(t.Name), opt.SampleRows)
		rs, err := eng.Query(ctx, q, opt.Limits)
		if err != nil {
			if sqlgym.IsInfra(err) {
				return fmt.Errorf("profile column %s.%s: %w", t.Name, c.Name, err)
			}
			s.Columns[colKey(t.Name, c.Name)] = Facts{Nulls: true, Duplicates: true}
			continue
		}
		r := rs.Rows[0]
		if t.Rows > r[0].Int {
			s.Sampled = true
		}
		s.Columns[colKey(t.Name, c.Name)] = Facts{Nulls: r[1].Int < r[0].Int, Duplicates: r[2].Int < r[1].Int, Distinct: r[2].Int}
	}
	return nil
}
