package duckdb

import (
	"context"
	"testing"
	"time"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/engine/enginetest"
)

func benchQuery(b *testing.B, sql string) {
	b.Run("worker", func(b *testing.B) { benchQueryOpts(b, sql, Options{}) })
	b.Run("inprocess", func(b *testing.B) { benchQueryOpts(b, sql, Options{InProcess: true}) })
}

func benchQueryOpts(b *testing.B, sql string, opts Options) {
	eng, _ := openDB(b, enginetest.Fixture(), opts)
	ctx := context.Background()
	if _, err := eng.Query(ctx, sql, sqlgym.Limits{}); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := eng.Query(ctx, sql, sqlgym.Limits{}); err != nil {
			b.Fatal(err)
		}
	}
}

// A typical verifier query: aggregate, join-free, over the 5,000-row table.
func BenchmarkQueryAggregate(b *testing.B) {
	benchQuery(b, `SELECT grp, count(*) AS n, avg(x) AS mean FROM nums WHERE n > 100 GROUP BY grp ORDER BY grp`)
}

// Reading 1,000 rows of three columns back into sqlgym values.
func BenchmarkQueryRows(b *testing.B) {
	benchQuery(b, `SELECT n, label, x FROM nums WHERE n <= 1000 ORDER BY n`)
}

// Join and filter on the small tables.
func BenchmarkQueryJoin(b *testing.B) {
	benchQuery(b, `SELECT p.name, sum(o.amount) AS total FROM people p JOIN orders o ON o.person_id = p.id GROUP BY p.name ORDER BY total DESC`)
}

// The cost of a cold open: DuckDB instance, sandbox lock and check, first
// connection and one trivial query.
// In worker mode that is the start of a worker process: exec, Go runtime,
// DuckDB open and sandbox check, in the child.
func BenchmarkOpenFirstQuery(b *testing.B) {
	b.Run("worker", func(b *testing.B) { benchOpen(b, Options{}) })
	b.Run("inprocess", func(b *testing.B) { benchOpen(b, Options{InProcess: true}) })
}

func benchOpen(b *testing.B, opts Options) {
	path := newDB(b, enginetest.Fixture())
	ctx := context.Background()
	for b.Loop() {
		eng, err := Open(path, opts)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := eng.Query(ctx, "SELECT 1", sqlgym.Limits{}); err != nil {
			b.Fatal(err)
		}
		if err := eng.Close(); err != nil {
			b.Fatal(err)
		}
	}
}

// A statement that overran its time limit where DuckDB does not check for
// interrupts (constant folding) costs a worker: this is the
// kill and the replacement's start, as the next statement sees it.
func BenchmarkTimeoutThenQuery(b *testing.B) {
	eng, _ := openDB(b, enginetest.Fixture(), Options{PoolSize: 1})
	ctx := context.Background()
	for b.Loop() {
		if _, err := eng.Query(ctx, "SELECT length(repeat('x', 300000000))", sqlgym.Limits{Timeout: 10 * time.Millisecond}); err == nil {
			b.Fatal("the runaway statement succeeded")
		}
		if _, err := eng.Query(ctx, "SELECT 1", sqlgym.Limits{}); err != nil {
			b.Fatal(err)
		}
	}
}

// The function gate's share of a statement (DuckDB's parse into JSON and
// the walk over it) and the worker's state check after it.
func BenchmarkGate(b *testing.B) {
	eng, _ := openDB(b, enginetest.Fixture(), Options{InProcess: true, PoolSize: 1})
	ctx := context.Background()
	p, err := eng.handle(ctx)
	if err != nil {
		b.Fatal(err)
	}
	defer eng.running.Done()
	const sql = `SELECT p.name, sum(o.amount) AS total FROM people p JOIN orders o ON o.person_id = p.id GROUP BY p.name ORDER BY total DESC`
	b.Run("gate", func(b *testing.B) {
		l, err := p.acquire(ctx)
		if err != nil {
			b.Fatal(err)
		}
		defer l.release()
		for b.Loop() {
			if _, err := gate(ctx, p, l.conn, sql); err != nil {
				b.Fatal(err)
			}
		}
	})
	for name, q := range map[string]string{"quick-fingerprint": quickFingerprintSQL, "full-fingerprint": fullFingerprintSQL} {
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				if _, err := fingerprint(ctx, p, q); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
