package constraints

import (
	"context"
	"strings"

	"github.com/sqlgym/sqlgym"
)

// inferSplitKey implies a foreign key from t's key to another table's
// key when the two tables are one entity split in two (car_1's cars_data
// and car_names: cars_data.id holds exactly the values of
// car_names.makeid, one row each). The name rule of inferForeignKeys
// cannot see it: t's key is the generic "id", which names no table. So
// the evidence is the names of the tables, which share a word (car), and
// the data: the same number of rows and the same key values both ways.
// Only t's key named "id" refers, to a key named for something (makeid):
// the generic name is the one that borrows its identity. Without it a
// variant may hold a car with no name row, which every answer that
// reads the car through car_names loses and every answer that does not
// keeps: a right answer punished either way.
func (s *Set) inferSplitKey(ctx context.Context, eng sqlgym.Engine, schema *sqlgym.Schema, t *sqlgym.Table, opt Options) error {
	own := s.Key(t.Name)
	if own == nil || len(own.Columns) != 1 || norm(own.Columns[0]) != "id" || t.Rows < minPairRows {
		return nil
	}
	col := t.Column(own.Columns[0])
	if col == nil {
		return nil
	}
	for _, f := range s.ForeignKeys {
		if strings.EqualFold(f.Table, t.Name) && len(f.Columns) == 1 && strings.EqualFold(f.Columns[0], col.Name) {
			return nil // it already refers somewhere
		}
	}
	for pi := range schema.Tables {
		p := &schema.Tables[pi]
		k := s.Key(p.Name)
		if p == t || k == nil || len(k.Columns) != 1 || p.Rows != t.Rows || generic[norm(k.Columns[0])] || !shareWord(t.Name, p.Name) {
			continue
		}
		pc := p.Column(k.Columns[0])
		if pc == nil || !compatible(col, pc) {
			continue
		}
		same, err := sameValues(ctx, eng, t.Name, col.Name, p.Name, pc.Name, opt)
		if err != nil {
			return err
		}
		if same {
			s.ForeignKeys = append(s.ForeignKeys, ForeignKey{Table: t.Name, Columns: []string{col.Name}, RefTable: p.Name, RefColumns: []string{pc.Name}})
			return nil
		}
	}
	return nil
}

// sameValues reports whether a.x and b.y hold the same values: each is
// contained in the other (with as many rows and both unique, the same set).
func sameValues(ctx context.Context, eng sqlgym.Engine, a, x, b, y string, opt Options) (bool, error) {
	ok, err := contained(ctx, eng, a, x, b, y, opt)
	if err != nil || !ok {
		return false, err
	}
	return contained(ctx, eng, b, y, a, x, opt)
}

// shareWord reports whether two table names share a word of three
// letters or more, plurals undone (cars_data and car_names share car).
func shareWord(a, b string) bool {
	words := func(s string) map[string]bool {
		out := map[string]bool{}
		for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return r == '_' || r == ' ' || r == '-' }) {
			if w = singular(norm(w)); len(w) >= 3 {
				out[w] = true
			}
		}
		return out
	}
	wb := words(b)
	for w := range words(a) {
		if wb[w] {
			return true
		}
	}
	return false
}
