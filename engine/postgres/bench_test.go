package postgres

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/engine/enginetest"
)

// Benchmarks, run by hand: go test ./engine/postgres -run XXX -bench .
//
// BenchmarkQuery measures a whole sandboxed statement (screen, BEGIN with
// the SET LOCALs, the statement, ROLLBACK with the session reset).
// BenchmarkDecode compares the engine's decoding of the text format with
// pgx's typed decoding of the binary format on the same 5000-row result,
// outside the sandbox so only decoding differs.

var benchSQL = map[string]string{
	"one":  `SELECT 1`,
	"rows": `SELECT n, grp, label, x, CAST(x AS NUMERIC(10,2)) AS d FROM nums`,
}

func BenchmarkQuery(b *testing.B) {
	s := newSandboxB(b)
	eng := s.open(b, Options{})
	for _, name := range []string{"one", "rows"} {
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				if _, err := eng.Query(context.Background(), benchSQL[name], sqlgym.Limits{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkBareStatement is the floor BenchmarkQuery/one compares with:
// the same statement on a plain connection, one round trip, no sandbox.
func BenchmarkBareStatement(b *testing.B) {
	s := newSandboxB(b)
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, s.reader)
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close(ctx)
	for b.Loop() {
		if _, err := conn.PgConn().ExecParams(ctx, `SELECT 1`, nil, nil, nil, nil).Close(); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDecode(b *testing.B) {
	s := newSandboxB(b)
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, s.reader)
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close(ctx)
	sql := `SELECT n, grp, label, x, CAST(x AS NUMERIC(10,2)) AS d FROM ` + pgx.Identifier{s.schema, "nums"}.Sanitize()
	b.Run("text_engine", func(b *testing.B) {
		for b.Loop() {
			rr := conn.PgConn().ExecParams(ctx, sql, nil, nil, nil, nil)
			fds := rr.FieldDescriptions()
			decs := make([]decoder, len(fds))
			for i, fd := range fds {
				decs[i] = decoderFor(fd.DataTypeOID)
			}
			var rows [][]sqlgym.Value
			for rr.NextRow() {
				vals := rr.Values()
				row := make([]sqlgym.Value, len(vals))
				for i, v := range vals {
					if v != nil {
						row[i], _ = decs[i](v)
					}
				}
				rows = append(rows, row)
			}
			if _, err := rr.Close(); err != nil || len(rows) != enginetest.NumsRows {
				b.Fatal(err)
			}
		}
	})
	b.Run("binary_pgx_values", func(b *testing.B) {
		for b.Loop() {
			rows, err := conn.Query(ctx, sql, pgx.QueryExecModeCacheDescribe)
			if err != nil {
				b.Fatal(err)
			}
			n := 0
			for rows.Next() {
				if _, err := rows.Values(); err != nil {
					b.Fatal(err)
				}
				n++
			}
			if rows.Err() != nil || n != enginetest.NumsRows {
				b.Fatal(rows.Err())
			}
		}
	})
}

func newSandboxB(b *testing.B) *sandbox { return newSandbox(b, enginetest.Fixture()) }
