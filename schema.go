package sqlgym

import "context"

// Schema describes a database's tables for prompts, authoring and the
// agent's describe_table tool.
type Schema struct {
	Dialect Dialect `json:"dialect"`
	Tables  []Table `json:"tables"`
}

// Table is one table of a schema.
type Table struct {
	Name        string       `json:"name"`
	Columns     []Column     `json:"columns"`
	PrimaryKey  []string     `json:"primary_key,omitempty"`
	ForeignKeys []ForeignKey `json:"foreign_keys,omitempty"`
	// Rows is the table's row count.
	Rows int64 `json:"rows"`
}

// Column is one column of a table.
type Column struct {
	Name    string `json:"name"`
	Type    string `json:"type"`
	NotNull bool   `json:"not_null,omitempty"`
	// Unique is a UNIQUE constraint on this column alone (a primary key
	// is in Table.PrimaryKey, not here). Read from SQLite; false from the
	// engines that do not report it.
	Unique bool `json:"unique,omitempty"`
	// Collation is the collating sequence a SQLite column declares when
	// it is not BINARY, the default (NOCASE, RTRIM); empty otherwise, and
	// always empty from the DuckDB and PostgreSQL engines, which do not
	// read it. Under NOCASE 'B' equals 'b': proofs about equal values need
	// it.
	Collation string `json:"collation,omitempty"`
	// Samples are a few distinct real values, shown in prompts so a model
	// sees how the data is written ('Shipped' or 'shipped'?).
	Samples []Value `json:"-"`
}

// ForeignKey says Columns of a table refer to RefColumns of RefTable.
type ForeignKey struct {
	Columns    []string `json:"columns"`
	RefTable   string   `json:"ref_table"`
	RefColumns []string `json:"ref_columns"`
}

// Table returns the named table (case-insensitively), or nil.
func (s *Schema) Table(name string) *Table {
	for i := range s.Tables {
		if equalFold(s.Tables[i].Name, name) {
			return &s.Tables[i]
		}
	}
	return nil
}

// Column returns the named column (case-insensitively), or nil.
func (t *Table) Column(name string) *Column {
	for i := range t.Columns {
		if equalFold(t.Columns[i].Name, name) {
			return &t.Columns[i]
		}
	}
	return nil
}

func equalFold(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(a); i++ {
		x, y := a[i], b[i]
		if 'A' <= x && x <= 'Z' {
			x += 'a' - 'A'
		}
		if 'A' <= y && y <= 'Z' {
			y += 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}

// Describer is implemented by engines that can describe their database's
// schema with trusted introspection (catalog tables the sandbox would not
// let model SQL read).
type Describer interface {
	Describe(ctx context.Context) (*Schema, error)
}
