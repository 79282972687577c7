package sqlite

import (
	"context"
	"fmt"
	"sort"
	"strings"

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
	c, err := openDB(e.uri, openReadOnly|openURI|openNoMutex, false)
	if err != nil {
		return nil, &sqlgym.InfraError{Err: fmt.Errorf("open %s: %w", e.path, err)}
	}
	defer c.close()
	stop := c.interruptOn(ctx)
	defer stop()

	s := &sqlgym.Schema{Dialect: sqlgym.DialectSQLite}
	ddl := map[string]string{}
	err = each(c, `SELECT name, sql FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite\_%' ESCAPE '\' ORDER BY rowid`, nil, func(r row) {
		s.Tables = append(s.Tables, sqlgym.Table{Name: r.text(0)})
		ddl[r.text(0)] = r.text(1)
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
		coll := collations(ddl[t.Name])
		err := each(c, `SELECT name, type, "notnull", pk FROM pragma_table_info(?)`, []string{t.Name}, func(r row) {
			col := sqlgym.Column{Name: r.text(0), Type: r.text(1), NotNull: r.int(2) != 0, Collation: coll[strings.ToLower(r.text(0))]}
			if p := r.int(3); p > 0 {
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
		// A UNIQUE constraint is an index of origin 'u'; one on a single
		// column marks that column.
		var uniq []string
		err = each(c, `SELECT il.name FROM pragma_index_list(?) AS il WHERE il."unique" AND il.origin = 'u' AND (SELECT count(*) FROM pragma_index_info(il.name)) = 1`, []string{t.Name}, func(r row) {
			uniq = append(uniq, r.text(0))
		})
		if err != nil {
			return nil, err
		}
		for _, ix := range uniq {
			err = each(c, `SELECT name FROM pragma_index_info(?)`, []string{ix}, func(r row) {
				if col := t.Column(r.text(0)); col != nil {
					col.Unique = true
				}
			})
			if err != nil {
				return nil, err
			}
		}
		fks := map[int]*sqlgym.ForeignKey{}
		var order []int
		err = each(c, `SELECT id, "table", "from", "to" FROM pragma_foreign_key_list(?) ORDER BY id, seq`, []string{t.Name}, func(r row) {
			id := r.int(0)
			fk := fks[id]
			if fk == nil {
				fk = &sqlgym.ForeignKey{RefTable: r.text(1)}
				fks[id] = fk
				order = append(order, id)
			}
			fk.Columns = append(fk.Columns, r.text(2))
			// "to" is NULL when the key names the parent's primary key
			// implicitly; filled in below.
			fk.RefColumns = append(fk.RefColumns, r.text(3))
		})
		if err != nil {
			return nil, err
		}
		for _, id := range order {
			t.ForeignKeys = append(t.ForeignKeys, *fks[id])
		}
		err = each(c, `SELECT count(*) FROM "`+strings.ReplaceAll(t.Name, `"`, `""`)+`"`, nil, func(r row) {
			t.Rows = r.int64(0)
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

// row is one row of a trusted statement's result.
type row []sqlgym.Value

func (r row) text(i int) string { return r[i].Str }
func (r row) int64(i int) int64 { return r[i].Int }
func (r row) int(i int) int     { return int(r[i].Int) }

// each runs a trusted statement with text arguments and calls fn per row.
func each(c *conn, q string, args []string, fn func(row)) error {
	st, _, err := c.prepare(q)
	if err != nil {
		return fmt.Errorf("describe: %w", err)
	}
	defer st.close()
	for i, a := range args {
		if err := st.bindText(i+1, a); err != nil {
			return fmt.Errorf("describe: %w", err)
		}
	}
	for {
		ok, err := st.next()
		if err != nil {
			return fmt.Errorf("describe: %w", err)
		}
		if !ok {
			return nil
		}
		cells := st.row()
		r := make(row, len(cells))
		for i := range cells {
			r[i] = value(&cells[i])
		}
		fn(r)
	}
}
