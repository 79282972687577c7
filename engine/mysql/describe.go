package mysql

import (
	"context"
	"fmt"
	"strings"

	"github.com/sqlgym/sqlgym"
)

var _ sqlgym.Describer = (*Engine)(nil)

// Describe reads the tables of the connection's database from
// information_schema, which shows the reader the tables it may read. The
// statements are fixed and run through the sandbox like any other.
func (e *Engine) Describe(ctx context.Context) (*sqlgym.Schema, error) {
	lim := sqlgym.Limits{}
	cols, err := e.Query(ctx, `SELECT c.TABLE_NAME, c.COLUMN_NAME, c.COLUMN_TYPE, c.IS_NULLABLE, c.COLUMN_KEY
FROM information_schema.COLUMNS c
JOIN information_schema.TABLES t ON t.TABLE_SCHEMA = c.TABLE_SCHEMA AND t.TABLE_NAME = c.TABLE_NAME
WHERE c.TABLE_SCHEMA = DATABASE() AND t.TABLE_TYPE = 'BASE TABLE'
ORDER BY t.CREATE_TIME, c.TABLE_NAME, c.ORDINAL_POSITION`, lim)
	if err != nil {
		return nil, fmt.Errorf("describe columns: %w", err)
	}
	s := &sqlgym.Schema{Dialect: sqlgym.DialectMySQL}
	for _, r := range cols.Rows {
		name := r[0].Str
		if n := len(s.Tables); n == 0 || s.Tables[n-1].Name != name {
			s.Tables = append(s.Tables, sqlgym.Table{Name: name})
		}
		t := &s.Tables[len(s.Tables)-1]
		t.Columns = append(t.Columns, sqlgym.Column{Name: r[1].Str, Type: strings.ToUpper(r[2].Str), NotNull: r[3].Str == "NO"})
	}
	keys, err := e.Query(ctx, `SELECT k.TABLE_NAME, k.CONSTRAINT_NAME, k.COLUMN_NAME, k.REFERENCED_TABLE_NAME, k.REFERENCED_COLUMN_NAME
FROM information_schema.KEY_COLUMN_USAGE k
WHERE k.TABLE_SCHEMA = DATABASE() AND (k.CONSTRAINT_NAME = 'PRIMARY' OR k.REFERENCED_TABLE_NAME IS NOT NULL)
ORDER BY k.TABLE_NAME, k.CONSTRAINT_NAME, k.ORDINAL_POSITION`, lim)
	if err != nil {
		return nil, fmt.Errorf("describe keys: %w", err)
	}
	var cur *sqlgym.ForeignKey
	curKey := ""
	for _, r := range keys.Rows {
		t := s.Table(r[0].Str)
		if t == nil {
			continue
		}
		if r[1].Str == "PRIMARY" {
			t.PrimaryKey = append(t.PrimaryKey, r[2].Str)
			continue
		}
		if key := r[0].Str + "\x00" + r[1].Str; key != curKey {
			curKey = key
			t.ForeignKeys = append(t.ForeignKeys, sqlgym.ForeignKey{RefTable: r[3].Str})
			cur = &t.ForeignKeys[len(t.ForeignKeys)-1]
		}
		cur.Columns = append(cur.Columns, r[2].Str)
		cur.RefColumns = append(cur.RefColumns, r[4].Str)
	}
	for i := range s.Tables {
		t := &s.Tables[i]
		rs, err := e.Query(ctx, "SELECT count(*) FROM `"+strings.ReplaceAll(t.Name, "`", "``")+"`", lim)
		if err != nil {
			return nil, fmt.Errorf("count rows of %s: %w", t.Name, err)
		}
		t.Rows = rs.Rows[0][0].Int
	}
	return s, nil
}
