package variants

import (
	"context"
	"fmt"
	"slices"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/author/goldfilter"
	"github.com/sqlgym/sqlgym/engine"
	"github.com/sqlgym/sqlgym/engine/duckdb"
	"github.com/sqlgym/sqlgym/engine/mysql"
	"github.com/sqlgym/sqlgym/engine/postgres"
	"github.com/sqlgym/sqlgym/engine/sqlite"
	"github.com/sqlgym/sqlgym/screen"
)

// goldState is what a gold does on one database: whether it runs and
// returns the same rows when the scan order is reversed, and how many.
type goldState struct {
	ok   bool
	rows int
}

// maxGoldRows bounds the rows the gold check reads: the check is about
// errors and order, and a gold past it is compared on its first rows.
const maxGoldRows = 100_000

// checkGolds runs every gold on the SQLite file twice through the author
// execution filter, once with SQLite's reverse_unordered_selects: a gold
// whose rows depend on scan order (a LIMIT through tied sort keys, a bare
// column of a group) returns different rows, which is the filter's
// "unstable", and one ending in ORDER BY ... LIMIT gets the filter's tie
// check too (screen.TieCheck). The error is only an infrastructure
// failure.
func checkGolds(ctx context.Context, path string, golds []string, lim sqlgym.Limits) (map[string]goldState, error) {
	a, err := sqlite.Open(path, sqlite.Options{PoolSize: 1})
	if err != nil {
		return nil, fmt.Errorf("gold check: %w", err)
	}
	defer a.Close()
	b, err := sqlite.Open(path, sqlite.Options{PoolSize: 1, ReverseUnordered: true})
	if err != nil {
		return nil, fmt.Errorf("gold check: %w", err)
	}
	defer b.Close()
	return filterGolds(ctx, a, b, golds, lim)
}

// checkGoldsDuckDB is checkGolds on a DuckDB file. DuckDB has no switch
// that reverses scans; what makes its unordered results vary is
// parallelism, so the second run has two threads where the first (and
// the verifier, by default) has one: a gold whose rows depend on the
// order in which threads finish shows as "unstable", and the tie check
// catches a LIMIT through tied keys either way. Both run in worker
// processes as the verifier's do; where there are none (not Linux) DuckDB
// cannot hold a file open twice with different settings, and both runs
// have one thread.
func checkGoldsDuckDB(ctx context.Context, path string, golds []string, lim sqlgym.Limits) (map[string]goldState, error) {
	a, err := duckdb.Open(path, duckdb.Options{PoolSize: 1, Threads: 1, InProcess: duckdb.SeparateInstances()})
	if err != nil {
		return nil, fmt.Errorf("gold check: %w", err)
	}
	defer a.Close()
	threads := 1
	if duckdb.SeparateInstances() {
		threads = 2
	}
	b, err := duckdb.Open(path, duckdb.Options{PoolSize: 1, Threads: threads})
	if err != nil {
		return nil, fmt.Errorf("gold check: %w", err)
	}
	defer b.Close()
	return filterGolds(ctx, a, b, golds, lim)
}

// checkGoldsPostgres is checkGolds on a PostgreSQL schema, read with the
// reader's dsn as the verifier reads it. PostgreSQL cannot be told to
// scan backwards, so the two runs are on two sessions and differ only as
// the server's plans and synchronized scans make them; the tie check
// does the rest.
func checkGoldsPostgres(ctx context.Context, dsn, schema string, golds []string, lim sqlgym.Limits) (map[string]goldState, error) {
	opt := postgres.Options{Schema: schema, MaxConns: 1, NoLoadRetry: true}
	a, err := postgres.Open(ctx, dsn, opt)
	if err != nil {
		return nil, fmt.Errorf("gold check: %w", err)
	}
	defer a.Close()
	b, err := postgres.Open(ctx, dsn, opt)
	if err != nil {
		return nil, fmt.Errorf("gold check: %w", err)
	}
	defer b.Close()
	return filterGolds(ctx, a, b, golds, lim)
}

// checkGoldsMySQL is checkGolds on a MySQL database, read with the
// reader's URL on two engines (two sessions), as checkGoldsPostgres does.
func checkGoldsMySQL(ctx context.Context, dsn string, golds []string, lim sqlgym.Limits) (map[string]goldState, error) {
	a, err := mysql.Open(ctx, dsn, mysql.Options{MaxConns: 1})
	if err != nil {
		return nil, fmt.Errorf("gold check: %w", err)
	}
	defer a.Close()
	b, err := mysql.Open(ctx, dsn, mysql.Options{MaxConns: 1})
	if err != nil {
		return nil, fmt.Errorf("gold check: %w", err)
	}
	defer b.Close()
	return filterGolds(ctx, a, b, golds, lim)
}

// checkGoldsURL is the gold check for the database at url, by its
// engine.
func checkGoldsURL(ctx context.Context, url string, golds []string, lim sqlgym.Limits) (map[string]goldState, error) {
	loc, err := engine.ParseURL(url)
	if err != nil {
		return nil, err
	}
	switch loc.Dialect {
	case sqlgym.DialectSQLite:
		return checkGolds(ctx, loc.Path, golds, lim)
	case sqlgym.DialectDuckDB:
		return checkGoldsDuckDB(ctx, loc.Path, golds, lim)
	case sqlgym.DialectPostgres:
		return checkGoldsPostgres(ctx, loc.DSN, loc.Schema, golds, lim)
	case sqlgym.DialectMySQL:
		return checkGoldsMySQL(ctx, loc.DSN, golds, lim)
	}
	return nil, fmt.Errorf("gold check: no engine for %s", loc.Dialect)
}

// filterGolds runs each gold through the author execution filter on a
// and b.
func filterGolds(ctx context.Context, a, b sqlgym.Engine, golds []string, lim sqlgym.Limits) (map[string]goldState, error) {
	f := goldfilter.Filter{A: a, B: b, MinRows: 1, MaxRows: maxGoldRows, Limits: lim.GoldLimits()}
	out := make(map[string]goldState, len(golds))
	for _, g := range golds {
		c := goldfilter.Gold{SQL: g}
		// A LIMIT through tied sort keys can look stable under both scan
		// orders (the tie is broken the same way by the sorter), so golds
		// that end in ORDER BY ... LIMIT also get the filter's tie check.
		if tie, at, ok := screen.TieCheck(g); ok {
			c.TieSQL, c.TieAt = tie, at
		}
		v, err := f.Check(ctx, c)
		if err == nil && v.Reason == goldfilter.ReasonError && c.TieSQL != "" {
			// The tie query is ours and may not run where the gold does
			// (an alias it cannot see): the gold's own verdict stands.
			c.TieSQL = ""
			v, err = f.Check(ctx, c)
		}
		if err != nil {
			return nil, fmt.Errorf("gold check: %w", err)
		}
		if v.Reason == "" || v.Reason == goldfilter.ReasonTooManyRows || v.Reason == goldfilter.ReasonTooFewRows {
			tied, err := nestedTie(ctx, a, g, f.Limits)
			if err != nil {
				return nil, fmt.Errorf("gold check: %w", err)
			}
			if tied {
				out[g] = goldState{}
				continue
			}
		}
		switch v.Reason {
		case "", goldfilter.ReasonTooManyRows:
			out[g] = goldState{ok: true, rows: v.Rows}
		case goldfilter.ReasonTooFewRows:
			out[g] = goldState{ok: true, rows: 0}
		default:
			out[g] = goldState{}
		}
	}
	return out, nil
}

// broken lists the golds that were fine on the original and are not on
// the candidate.
func broken(orig, cand map[string]goldState) []string {
	var out []string
	for g, o := range orig {
		if o.ok && !cand[g].ok {
			out = append(out, g)
		}
	}
	return out
}

// nestedTie reports whether a LIMIT inside one of the gold's subqueries
// cuts through tied sort keys (screen.NestedTieChecks): the subquery
// then picks one of the tied rows by plan, and the gold's result with it,
// which neither scan order need show. A check that does not run (a
// correlated subquery) says nothing; only an infrastructure failure is an
// error.
func nestedTie(ctx context.Context, eng sqlgym.Engine, gold string, lim sqlgym.Limits) (bool, error) {
	for _, tie := range screen.NestedTieChecks(gold) {
		rs, err := eng.Query(ctx, tie.SQL, sqlgym.Limits{Timeout: lim.Timeout, VMSteps: lim.VMSteps, MaxRows: tie.At + 2})
		if err != nil {
			if sqlgym.IsInfra(err) {
				return false, err
			}
			continue
		}
		if len(rs.Rows) > tie.At && slices.Equal(rs.Rows[tie.At-1], rs.Rows[tie.At]) {
			return true, nil
		}
	}
	return false, nil
}
