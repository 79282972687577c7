package sqlite

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/ncruces/go-sqlite3"

	"github.com/sqlgym/sqlgym"
)

var _ sqlgym.Describer = (*Engine)(nil)

// Describe reads the schema with trusted introspection (pragma table
// functions, which the sandbox's authorizer refuses to model SQL) on a
// connection of its own that runs only the fixed statements below.
func (e *Engine) Describe(ctx context.Context) (*sqlgym.Schema, error) {
	if e.isClosed() {
		return nil, &sqlgym.InfraError{Err: ErrClosed}
	}
	c, err := sqlite3.OpenFlags(e.uri, sqlite3.OPEN_READONLY|sqlite3.OPEN_URI)
	if err != nil {
		return nil, &sqlgym.InfraError{Err: fmt.Errorf("open %s: %w", e.path, err)}
	}
	defer c.Close()
	old := c.SetInterrupt(ctx)
	defer c.SetInterrupt(old)

	s := &sqlgym.Schema{Dialect: sqlgym.DialectSQLite}
	err = each(c, `SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite\_%' ESCAPE '\' ORDER BY rowid`, nil, func(st *sqlite3.Stmt) {
		s.Tables = append(s.Tables, sqlgym.Table{Name: st.ColumnText(0)})
	})
	if err != nil {
		return nil, err
	}
	for i := range s.Tables {
		t := &s.Tables[i]
		type pkCol struct {
			pos  int
			name string
		}
		var pks []pkCol
		err := each(c, `SELECT name, type, "notnull", pk FROM pragma_table_info(?)`, []string{t.Name}, func(st *sqlite3.Stmt) {
			col := sqlgym.Column{Name: st.ColumnText(0), Type: st.ColumnText(1), NotNull: st.ColumnInt(2) != 0}
			if p := st.ColumnInt(3); p > 0 {
				pks = append(pks, pkCol{p, col.Name})
			}
			t.Columns = append(t.Columns, col)
		})
		if err != nil {
			return nil, err
		}
		sort.Slice(pks, func(a, b int) bool { return pks[a].pos < pks[b].pos })
		for _, p := range pks {
			t.PrimaryKey = append(t.PrimaryKey, p.name)
		}
		fks := map[int]*sqlgym.ForeignKey{}
		var order []int
		err = each(c, `SELECT id, "table", "from", "to" FROM pragma_foreign_key_list(?) ORDER BY id, seq`, []string{t.Name}, func(st *sqlite3.Stmt) {
			id := st.ColumnInt(0)
			fk := fks[id]
			if fk == nil {
				fk = &sqlgym.ForeignKey{RefTable: st.ColumnText(1)}
				fks[id] = fk
				order = append(order, id)
			}
			fk.Columns = append(fk.Columns, st.ColumnText(2))
			// "to" is NULL when the key names the parent's primary key
			// implicitly; filled in below.
			fk.RefColumns = append(fk.RefColumns, st.ColumnText(3))
		})
		if err != nil {
			return nil, err
		}
		for _, id := range order {
			t.ForeignKeys = append(t.ForeignKeys, *fks[id])
		}
		err = each(c, `SELECT count(*) FROM "`+strings.ReplaceAll(t.Name, `"`, `""`)+`"`, nil, func(st *sqlite3.Stmt) {
			t.Rows = st.ColumnInt64(0)
		})
		if err != nil {
			return nil, err
		}
	}
	for i := range s.Tables {
		for j := range s.Tables[i].ForeignKeys {
			fk := &s.Tables[i].ForeignKeys[j]
			if parent := s.Table(fk.RefTable); parent != nil {
				for k := range fk.RefColumns {
					if fk.RefColumns[k] == "" && k < len(parent.PrimaryKey) {
						fk.RefColumns[k] = parent.PrimaryKey[k]
					}
				}
			}
		}
	}
	return s, nil
}

// each runs a trusted statement with text arguments and calls fn per row.
func each(c *sqlite3.Conn, q string, args []string, fn func(*sqlite3.Stmt)) error {
	st, _, err := c.Prepare(q)
	if err != nil {
		return fmt.Errorf("describe: %w", err)
	}
	defer st.Close()
	for i, a := range args {
		if err := st.BindText(i+1, a); err != nil {
			return fmt.Errorf("describe: %w", err)
		}
	}
	for st.Step() {
		fn(st)
	}
	if err := st.Err(); err != nil {
		return fmt.Errorf("describe: %w", err)
	}
	return nil
}
