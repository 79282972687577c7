package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/sqlgym/sqlgym"
)

var _ sqlgym.Describer = (*Engine)(nil)

// Describe reads the tables of the engine's schema (the search_path's
// first schema) from the system catalogs. It runs through the sandbox like
// any statement: the catalogs are readable by the reader role, and the
// statements are fixed.
func (e *Engine) Describe(ctx context.Context) (*sqlgym.Schema, error) {
	lim := sqlgym.Limits{}
	cols, err := e.Query(ctx, `SELECT c.relname, a.attname, format_type(a.atttypid, a.atttypmod), a.attnotnull
FROM pg_class c
JOIN pg_namespace n ON n.oid = c.relnamespace
JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'p')
ORDER BY c.oid, a.attnum`, lim)
	if err != nil {
		return nil, fmt.Errorf("describe columns: %w", err)
	}
	s := &sqlgym.Schema{Dialect: sqlgym.DialectPostgres}
	for _, r := range cols.Rows {
		name := r[0].Str
		if n := len(s.Tables); n == 0 || s.Tables[n-1].Name != name {
			s.Tables = append(s.Tables, sqlgym.Table{Name: name})
		}
		t := &s.Tables[len(s.Tables)-1]
		t.Columns = append(t.Columns, sqlgym.Column{Name: r[1].Str, Type: r[2].Str, NotNull: r[3].Int != 0})
	}
	pks, err := e.Query(ctx, `SELECT c.relname, a.attname
FROM pg_index i
JOIN pg_class c ON c.oid = i.indrelid
JOIN pg_namespace n ON n.oid = c.relnamespace
JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY (i.indkey)
WHERE n.nspname = current_schema() AND i.indisprimary
ORDER BY c.relname, array_position(i.indkey::int2[], a.attnum)`, lim)
	if err != nil {
		return nil, fmt.Errorf("describe primary keys: %w", err)
	}
	for _, r := range pks.Rows {
		if t := s.Table(r[0].Str); t != nil {
			t.PrimaryKey = append(t.PrimaryKey, r[1].Str)
		}
	}
	fks, err := e.Query(ctx, `SELECT c.relname, k.conname, rc.relname, a.attname, af.attname
FROM pg_constraint k
JOIN pg_class c ON c.oid = k.conrelid
JOIN pg_namespace n ON n.oid = c.relnamespace
JOIN pg_class rc ON rc.oid = k.confrelid
JOIN LATERAL unnest(k.conkey, k.confkey) WITH ORDINALITY AS u(key, fkey, ord) ON true
JOIN pg_attribute a ON a.attrelid = k.conrelid AND a.attnum = u.key
JOIN pg_attribute af ON af.attrelid = k.confrelid AND af.attnum = u.fkey
WHERE n.nspname = current_schema() AND k.contype = 'f'
ORDER BY c.relname, k.conname, u.ord`, lim)
	if err != nil {
		return nil, fmt.Errorf("describe foreign keys: %w", err)
	}
	var cur *sqlgym.ForeignKey
	curKey := ""
	for _, r := range fks.Rows {
		t := s.Table(r[0].Str)
		if t == nil {
			continue
		}
		if key := r[0].Str + "\x00" + r[1].Str; key != curKey {
			curKey = key
			t.ForeignKeys = append(t.ForeignKeys, sqlgym.ForeignKey{RefTable: r[2].Str})
			cur = &t.ForeignKeys[len(t.ForeignKeys)-1]
		}
		cur.Columns = append(cur.Columns, r[3].Str)
		cur.RefColumns = append(cur.RefColumns, r[4].Str)
	}
	for i := range s.Tables {
		t := &s.Tables[i]
		rs, err := e.Query(ctx, "SELECT count(*) FROM "+pgx.Identifier{t.Name}.Sanitize(), lim)
		if err != nil {
			return nil, fmt.Errorf("count rows of %s: %w", t.Name, err)
		}
		t.Rows = rs.Rows[0][0].Int
	}
	return s, nil
}
