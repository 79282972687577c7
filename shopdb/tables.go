package shopdb

import (
	"fmt"
	"strings"
	"sync"
)

// Table describes one table of the shop database, read from its DDL.
type Table struct {
	Name       string
	Columns    []Column
	PrimaryKey string // every table has a single-column integer key
}

// Column is one column as declared.
type Column struct {
	Name string
	// Type is the declared type in upper case: INTEGER, VARCHAR(50), TEXT,
	// DECIMAL(10,2), DATE or TIMESTAMP.
	Type    string
	NotNull bool
	// References is "table(column)" for a foreign key, else "".
	References string
}

var tables = sync.OnceValue(func() []Table {
	ts, err := parseTables(statements())
	if err != nil {
		panic("shopdb: " + err.Error())
	}
	return ts
})

// parseTables reads the CREATE TABLE statements that the generator writes:
// one column per line, "name TYPE [NOT NULL] [PRIMARY KEY] [REFERENCES t
// (c)]", an optional trailing comment. It is not a general DDL parser.
func parseTables(stmts []string) ([]Table, error) {
	var out []Table
	for _, st := range stmts {
		if !strings.HasPrefix(st, "CREATE TABLE ") {
			continue
		}
		lines := strings.Split(st, "\n")
		t := Table{Name: strings.TrimSuffix(strings.Fields(lines[0])[2], "(")}
		for _, line := range lines[1:] {
			line, _, _ = strings.Cut(line, "--")
			line = strings.TrimSuffix(strings.TrimSpace(line), ",")
			if line == "" || line == ")" {
				continue
			}
			f := strings.Fields(line)
			if len(f) < 2 {
				return nil, fmt.Errorf("table %s: cannot read column line %q", t.Name, line)
			}
			c := Column{Name: f[0], Type: strings.ToUpper(f[1])}
			up := strings.ToUpper(line)
			c.NotNull = strings.Contains(up, " NOT NULL")
			if strings.Contains(up, " PRIMARY KEY") {
				if t.PrimaryKey != "" {
					return nil, fmt.Errorf("table %s: two primary key columns", t.Name)
				}
				t.PrimaryKey = c.Name
			}
			if i := strings.Index(up, " REFERENCES "); i >= 0 {
				ref := strings.Fields(line[i+len(" REFERENCES "):])
				if len(ref) != 2 {
					return nil, fmt.Errorf("table %s: cannot read reference in %q", t.Name, line)
				}
				c.References = ref[0] + strings.ReplaceAll(ref[1], " ", "")
			}
			t.Columns = append(t.Columns, c)
		}
		if t.PrimaryKey == "" {
			return nil, fmt.Errorf("table %s has no primary key", t.Name)
		}
		out = append(out, t)
	}
	if len(out) != NumTables {
		return nil, fmt.Errorf("schema has %d tables, want %d", len(out), NumTables)
	}
	return out, nil
}
