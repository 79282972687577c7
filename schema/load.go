package schema

import (
	"context"
	"fmt"
	"strings"

	"github.com/sqlgym/sqlgym"
)

// Load describes the engine's database and fills up to samples distinct
// non-NULL values per column (0: none). The engine must implement
// sqlgym.Describer.
func Load(ctx context.Context, eng sqlgym.Engine, samples int) (*sqlgym.Schema, error) {
	d, ok := eng.(sqlgym.Describer)
	if !ok {
		return nil, fmt.Errorf("the %s engine cannot describe its schema", eng.Dialect())
	}
	s, err := d.Describe(ctx)
	if err != nil {
		return nil, fmt.Errorf("describe database: %w", err)
	}
	if samples <= 0 {
		return s, nil
	}
	for ti := range s.Tables {
		t := &s.Tables[ti]
		for ci := range t.Columns {
			c := &t.Columns[ci]
			q := fmt.Sprintf("SELECT DISTINCT %s FROM %s WHERE %s IS NOT NULL LIMIT %d",
				Quote(c.Name), Quote(t.Name), Quote(c.Name), samples)
			rs, err := eng.Query(ctx, q, sqlgym.Limits{MaxRows: samples + 1})
			if err != nil {
				if sqlgym.IsInfra(err) {
					return nil, fmt.Errorf("sample %s.%s: %w", t.Name, c.Name, err)
				}
				continue // an odd column type is no reason to fail the schema
			}
			for _, row := range rs.Rows {
				c.Samples = append(c.Samples, row[0])
			}
		}
	}
	return s, nil
}

// Quote quotes an identifier for SQLite, PostgreSQL and DuckDB alike.
func Quote(name string) string {
	return `"` + strings.ReplaceAll(name, `"`, `""`) + `"`
}
