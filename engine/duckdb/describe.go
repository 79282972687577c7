package duckdb

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"strings"

	duck "github.com/duckdb/duckdb-go/v2"

	"github.com/sqlgym/sqlgym"
)

var _ sqlgym.Describer = (*Engine)(nil)

// Describe reads the schema of the database's own tables (not views,
// temporary or internal ones) from DuckDB's catalog functions, with fixed
// statements on a pooled connection. Tables come in name order, those of
// the main schema first; tables outside it are named schema.table.
func (e *Engine) Describe(ctx context.Context) (*sqlgym.Schema, error) {
	if e.useWorkers() {
		return e.describeWorker(ctx)
	}
	p, err := e.handle(ctx)
	if err != nil {
		return nil, err
	}
	defer e.running.Done()
	l, err := p.acquire(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("duckdb describe: %w", ctx.Err())
		}
		return nil, &sqlgym.InfraError{Err: err}
	}
	defer l.release()
	s, err := describeSchema(ctx, l.conn)
	if err != nil {
		return nil, fmt.Errorf("duckdb describe %s: %w", e.path, err)
	}
	return s, nil
}

// qualified is a table's name in the schema and in SQL.
type qualified struct{ schema, table string }

func (q qualified) name() string {
	if q.schema == "main" {
		return q.table
	}
	return q.schema + "." + q.table
}

func (q qualified) sql() string { return quoteIdent(q.schema) + "." + quoteIdent(q.table) }

func quoteIdent(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

func describeSchema(ctx context.Context, c *duck.Conn) (*sqlgym.Schema, error) {
	s := &sqlgym.Schema{Dialect: sqlgym.DialectDuckDB}
	index := map[qualified]int{}
	var order []qualified
	err := each(ctx, c, `SELECT schema_name, table_name FROM duckdb_tables()
		WHERE database_name = current_database() AND NOT temporary AND NOT internal
		ORDER BY schema_name <> 'main', schema_name, table_name`, func(v []driver.Value) {
		q := qualified{str(v[0]), str(v[1])}
		index[q] = len(s.Tables)
		order = append(order, q)
		s.Tables = append(s.Tables, sqlgym.Table{Name: q.name()})
	})
	if err != nil {
		return nil, err
	}
	err = each(ctx, c, `SELECT schema_name, table_name, column_name, data_type, NOT is_nullable
		FROM duckdb_columns() WHERE database_name = current_database() AND NOT internal
		ORDER BY schema_name, table_name, column_index`, func(v []driver.Value) {
		if i, ok := index[qualified{str(v[0]), str(v[1])}]; ok {
			notNull, _ := v[4].(bool)
			s.Tables[i].Columns = append(s.Tables[i].Columns, sqlgym.Column{Name: str(v[2]), Type: str(v[3]), NotNull: notNull})
		}
	})
	if err != nil {
		return nil, err
	}
	err = each(ctx, c, `SELECT schema_name, table_name, constraint_type, constraint_column_names,
			referenced_table, referenced_column_names
		FROM duckdb_constraints() WHERE database_name = current_database()
			AND constraint_type IN ('PRIMARY KEY', 'FOREIGN KEY')
		ORDER BY schema_name, table_name, constraint_index`, func(v []driver.Value) {
		i, ok := index[qualified{str(v[0]), str(v[1])}]
		if !ok {
			return
		}
		t := &s.Tables[i]
		switch str(v[2]) {
		case "PRIMARY KEY":
			t.PrimaryKey = strs(v[3])
		case "FOREIGN KEY":
			t.ForeignKeys = append(t.ForeignKeys, sqlgym.ForeignKey{Columns: strs(v[3]), RefTable: str(v[4]), RefColumns: strs(v[5])})
		}
	})
	if err != nil {
		return nil, err
	}
	for _, q := range order {
		t := &s.Tables[index[q]]
		err := each(ctx, c, "SELECT count(*) FROM "+q.sql(), func(v []driver.Value) {
			if n, ok := v[0].(int64); ok {
				t.Rows = n
			}
		})
		if err != nil {
			return nil, err
		}
	}
	return s, nil
}

// each runs a fixed statement and calls fn per row.
func each(ctx context.Context, c *duck.Conn, q string, fn func([]driver.Value)) error {
	rows, err := c.QueryContext(ctx, q, nil)
	if err != nil {
		return err
	}
	defer rows.Close()
	dst := make([]driver.Value, len(rows.Columns()))
	for {
		err := rows.Next(dst)
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		fn(dst)
	}
}

func str(v driver.Value) string {
	s, _ := v.(string)
	return s
}

func strs(v driver.Value) []string {
	list, _ := v.([]any)
	out := make([]string, 0, len(list))
	for _, x := range list {
		s, _ := x.(string)
		out = append(out, s)
	}
	return out
}
