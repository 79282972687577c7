package constraints

import (
	"strings"

	"github.com/sqlgym/sqlgym"
)

// Key is a primary key, declared or implied.
type Key struct {
	Table    string   `json:"table"`
	Columns  []string `json:"columns"`
	Declared bool     `json:"declared,omitempty"`
}

// ForeignKey says Columns of Table refer to RefColumns of RefTable,
// declared or implied.
type ForeignKey struct {
	Table      string   `json:"table"`
	Columns    []string `json:"columns"`
	RefTable   string   `json:"ref_table"`
	RefColumns []string `json:"ref_columns"`
	Declared   bool     `json:"declared,omitempty"`
}

// Facts is what a column's data shows: whether it holds a NULL or a
// value twice, which is what makes a NULL or a namesake a possible row
// rather than an artefact.
type Facts struct {
	// Nulls: the column holds a NULL (in the profiled rows).
	Nulls bool `json:"nulls,omitempty"`
	// Duplicates: some non-NULL value appears twice.
	Duplicates bool `json:"duplicates,omitempty"`
	// Distinct counts the distinct non-NULL values profiled.
	Distinct int64 `json:"distinct"`
	// Sample is one non-NULL value, which shows the form of the column's
	// values (an ISO date as text, say).
	Sample sqlgym.Value `json:"-"`
}

// Set is the constraints of one database.
type Set struct {
	Keys        []Key        `json:"keys"`
	ForeignKeys []ForeignKey `json:"foreign_keys"`
	// Columns holds each column's facts under "table.column", lower-cased.
	Columns map[string]Facts `json:"-"`
	// Sampled is true when some table had more rows than were profiled.
	Sampled bool `json:"sampled,omitempty"`
}

func colKey(table, col string) string { return strings.ToLower(table) + "." + strings.ToLower(col) }

// Facts returns what the data shows of a column (zero when unknown).
func (s *Set) Facts(table, col string) Facts {
	if s == nil {
		return Facts{}
	}
	return s.Columns[colKey(table, col)]
}

// Implied returns the keys and foreign keys the data implied.
func (s *Set) Implied() (keys []Key, fks []ForeignKey) {
	for _, k := range s.Keys {
		if !k.Declared {
			keys = append(keys, k)
		}
	}
	for _, f := range s.ForeignKeys {
		if !f.Declared {
			fks = append(fks, f)
		}
	}
	return keys, fks
}

// Key returns the key of table, or nil.
func (s *Set) Key(table string) *Key {
	for i := range s.Keys {
		if strings.EqualFold(s.Keys[i].Table, table) {
			return &s.Keys[i]
		}
	}
	return nil
}

// Apply returns a copy of schema whose tables carry the set's keys and
// foreign keys, the implied ones too when implied is true, and whose key
// columns are NOT NULL: the schema every reader of keys (the planner of
// variants, screen's proofs, author's profile) then sees as declared.
func (s *Set) Apply(schema *sqlgym.Schema, implied bool) *sqlgym.Schema {
	out := *schema
	out.Tables = make([]sqlgym.Table, len(schema.Tables))
	for i, t := range schema.Tables {
		t.Columns = append([]sqlgym.Column(nil), t.Columns...)
		t.ForeignKeys = append([]sqlgym.ForeignKey(nil), t.ForeignKeys...)
		t.PrimaryKey = append([]string(nil), t.PrimaryKey...)
		if s != nil {
			if k := s.Key(t.Name); k != nil && (k.Declared || implied) {
				if len(t.PrimaryKey) == 0 {
					t.PrimaryKey = append([]string(nil), k.Columns...)
				}
				// A key keeps no NULL in any variant (the guards), but a
				// declared SQLite key may hold one in the original.
				for _, c := range k.Columns {
					if col := t.Column(c); col != nil && !s.Facts(t.Name, c).Nulls {
						col.NotNull = true
					}
				}
			}
			for _, f := range s.ForeignKeys {
				if f.Declared || !implied || !strings.EqualFold(f.Table, t.Name) {
					continue
				}
				t.ForeignKeys = append(t.ForeignKeys, sqlgym.ForeignKey{Columns: f.Columns, RefTable: f.RefTable, RefColumns: f.RefColumns})
			}
		}
		out.Tables[i] = t
	}
	return &out
}

// Observed says what a column's data shows it keeps, beyond what is
// declared: never NULL (it holds none, and is no OptionalReference), and, for a text column, never
// repeated (it holds two values or more and no value twice: a name).
// Tables of fewer than two rows show nothing. Variants keep both unless
// asked not to, so proofs may rest on them (ApplyFacts).
func (s *Set) Observed(t *sqlgym.Table, c *sqlgym.Column) (notNull, unique bool) {
	if s == nil || t.Rows < 2 {
		return false, false
	}
	f := s.Facts(t.Name, c.Name)
	notNull = !f.Nulls && f.Distinct > 0 && !s.OptionalReference(t.Name, c)
	unique = notNull && class(c) == "text" && !f.Duplicates && f.Distinct >= 2
	return notNull, unique
}

// OptionalReference reports whether column c of table is the one column
// of a declared foreign key that is not declared NOT NULL: the schema's
// author allows a row without its parent there (a concert of unknown
// stadium), so a NULL is a possible row even where the data holds none.
// Implied foreign keys are not: nothing was declared about them.
func (s *Set) OptionalReference(table string, c *sqlgym.Column) bool {
	if s == nil || c.NotNull {
		return false
	}
	for _, f := range s.ForeignKeys {
		if f.Declared && len(f.Columns) == 1 && strings.EqualFold(f.Table, table) && strings.EqualFold(f.Columns[0], c.Name) {
			return true
		}
	}
	return false
}

// ApplyFacts marks, in schema (changed in place), the columns Observed
// finds never NULL as NOT NULL and never repeated as UNIQUE.
func (s *Set) ApplyFacts(schema *sqlgym.Schema) {
	for ti := range schema.Tables {
		t := &schema.Tables[ti]
		for ci := range t.Columns {
			c := &t.Columns[ci]
			nn, u := s.Observed(t, c)
			c.NotNull = c.NotNull || nn
			c.Unique = c.Unique || u
		}
	}
}
