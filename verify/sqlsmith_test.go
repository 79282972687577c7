package verify_test

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/catalog"
	"github.com/sqlgym/sqlgym/engine"
	"github.com/sqlgym/sqlgym/engine/postgres"
	"github.com/sqlgym/sqlgym/internal/testenv"
	"github.com/sqlgym/sqlgym/shopdb"
	"github.com/sqlgym/sqlgym/verify"
)

// The per-answer bounds the soak holds the verifier to, with the verifier's
// default limits (5 s, one retry of a timeout or infrastructure failure):
//   - PostgreSQL: the client deadline is Timeout + at most 2 s
//     (docs/sandbox-postgres.md), a timeout under load is tried once more,
//     and 10 s more cover opening the engine and a machine shared by builds.
//   - SQLite: about 10 s of CPU on an idle machine (the step budget and
//     its CPU cap, docs/sandbox-sqlite.md); the soak measures wall time
//     on a shared machine, so it keeps 67 s, room for a load of ~6 per
//     core (the 10-minute run at load 21-38 saw 7.5 s at most).
var sqlsmithBounds = map[sqlgym.Dialect]time.Duration{
	sqlgym.DialectPostgres: 2*(sqlgym.DefaultTimeout+2*time.Second) + 10*time.Second,
	sqlgym.DialectSQLite:   67 * time.Second,
}

// TestSQLSmithSoak feeds random queries from Debian's sqlsmith, generated
// on the built-in shop, through the verifier on SQLite and PostgreSQL for
// SQLGYM_SQLSMITH_DURATION each (default 10m; CI sets 60s), and fails on
// any answer its engine did not stop (the test's watchdog, twice the bound,
// had to). Answers past the bound itself (issue 25) are logged with the
// slowest, the figure docs/verifier.md's per-answer bounds quote: wall
// time on a shared machine is a measurement. A crash of the process fails
// the test run itself. Outcomes are logged.
func TestSQLSmithSoak(t *testing.T) {
	testenv.Slow(t, "sqlsmith queries through the verifier for SQLGYM_SQLSMITH_DURATION per engine")
	bin, err := exec.LookPath("sqlsmith")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("sqlsmith not installed: apt-get install sqlsmith (.ci/run installs it)")
		}
		t.Skip("sqlsmith not installed: apt-get install sqlsmith")
	}
	dur := 10 * time.Minute
	if s := os.Getenv("SQLGYM_SQLSMITH_DURATION"); s != "" {
		if dur, err = time.ParseDuration(s); err != nil {
			t.Fatalf("SQLGYM_SQLSMITH_DURATION=%q: %v", s, err)
		}
	}
	// The package's other tests share go test's deadline (10 minutes by
	// default): keep 90 s of it for them and for cleaning up.
	if dl, ok := t.Deadline(); ok {
		if left := (time.Until(dl) - 90*time.Second) / 2; left < dur {
			t.Logf("SQLGYM_SQLSMITH_DURATION %v shortened to %v per engine by go test's -timeout", dur, left.Round(time.Second))
			dur = max(left, 10*time.Second)
		}
	}
	t.Run("sqlite", func(t *testing.T) {
		cache := t.TempDir()
		cat, err := catalog.New(catalog.Config{CacheDir: cache})
		if err != nil {
			t.Fatal(err)
		}
		defer cat.Close()
		u, err := cat.Resolve(catalog.ShopName)
		if err != nil {
			t.Fatal(err)
		}
		shim := sqliteVersionShim(t, bin)
		gen := func(seed int) []string {
			return sqlsmithQueries(t, []string{"LD_PRELOAD=" + shim}, bin, "--sqlite=file:"+strings.TrimPrefix(u, "sqlite:")+"?mode=ro", seed)
		}
		soak(t, cat, gen, sqlgym.DialectSQLite, dur)
	})
	t.Run("postgres", func(t *testing.T) {
		dsn, schema := testenv.PostgresReader(t, func(ctx context.Context, admin, schema string) error {
			return postgres.Load(ctx, admin, schema, false, shopdb.Statements())
		})
		cat, err := catalog.New(catalog.Config{CacheDir: t.TempDir(), Refs: []string{catalog.ShopName + "=" + engine.WithSchema(dsn, schema)}})
		if err != nil {
			t.Fatal(err)
		}
		defer cat.Close()
		gen := func(seed int) []string { return sqlsmithQueries(t, nil, bin, "--target="+dsn, seed) }
		soak(t, cat, gen, sqlgym.DialectPostgres, dur)
		// Work the server kept doing past its verdict (JIT, issue 25) shows
		// as a backend of the reader still busy after the last answer.
		if busy := readerBusy(t, dsn, 10*time.Second); busy != "" {
			t.Errorf("postgres: 10 s after the last answer the reader still runs: %s", busy)
		}
	})
}

// soak verifies the generated queries one at a time until dur has passed.
func soak(t *testing.T, cat *catalog.Catalog, gen func(seed int) []string, d sqlgym.Dialect, dur time.Duration) {
	tasks := []sqlgym.Task{{ID: "t", DB: catalog.ShopName, SQL: "SELECT count(*) FROM orders"}}
	v := verify.New(cat, tasks, verify.Config{})
	bound := sqlsmithBounds[d]
	outcomes := map[sqlgym.Outcome]int{}
	var (
		slowest    time.Duration
		slowestSQL string
		slowSeed   int
	)
	end := time.Now().Add(dur)
	n, over := 0, 0
	for seed := 1; time.Now().Before(end); seed++ {
		for _, q := range gen(seed) {
			if !time.Now().Before(end) {
				break
			}
			// A hang watchdog at twice the bound: an answer it has to
			// stop was not stopped by the engine's limits at all. Past the
			// bound itself is a figure, logged: a loaded machine stretches
			// wall time, so it is no verdict on the code.
			ctx, cancel := context.WithTimeout(context.Background(), 2*bound)
			start := time.Now()
			r := v.Verify(ctx, verify.Answer{TaskID: "t", SQL: q})
			took := time.Since(start)
			hung := ctx.Err() != nil
			cancel()
			n++
			outcomes[r.Outcome]++
			if took > slowest {
				slowest, slowestSQL, slowSeed = took, q, seed
			}
			switch {
			case hung:
				t.Errorf("%s: hung: stopped by the test's watchdog after %v, not by the engine (outcome %s, %s), seed %d:\n%s", d, took, r.Outcome, r.Detail, seed, q)
			case took > bound:
				over++
				t.Logf("%s: %v past the bound of %v (outcome %s, %s), seed %d:\n%.3000s", d, took, bound, r.Outcome, r.Detail, seed, q)
			}
		}
	}
	t.Logf("%s: %d sqlsmith queries in %v, slowest answer %v (bound %v, %d past it), outcomes %v; the slowest, seed %d:\n%.3000s",
		d, n, dur, slowest.Round(time.Millisecond), bound, over, outcomes, slowSeed, slowestSQL)
	if n == 0 {
		t.Fatal("sqlsmith generated no query")
	}
}

// sqlsmithQueries prints one batch of queries with sqlsmith's --dry-run.
func sqlsmithQueries(t *testing.T, env []string, bin, target string, seed int) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, target, "--dry-run", "--max-queries=100", "--seed="+strconv.Itoa(seed))
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("sqlsmith --seed=%d: %v", seed, err)
	}
	var qs []string
	for _, q := range regexp.MustCompile(`;[ \t]*\n`).Split(string(out), -1) {
		if q = strings.TrimSpace(q); q != "" {
			qs = append(qs, q)
		}
	}
	return qs
}

// Debian's sqlsmith asserts that the SQLite library it loads is the one it
// was built with; sqlgym's tests may not run it against another. A shared
// library preloaded in front of libsqlite3 answers the three version calls
// with the build's own values, read from the sqlsmith binary (its source
// id, the version string before it).
var (
	sourceIDShape = regexp.MustCompile(`\b20\d\d-\d\d-\d\d \d\d:\d\d:\d\d [0-9a-f]{60}[0-9a-z]{4}\b`)
	versionShape  = regexp.MustCompile(`\x00(3\.(\d+)\.(\d+))\x00`)
)

func sqliteVersionShim(t *testing.T, bin string) string {
	t.Helper()
	b, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	id := sourceIDShape.Find(b)
	v := versionShape.FindSubmatch(b)
	if id == nil || v == nil {
		t.Fatalf("%s: no SQLite source id or version string found to preload", bin)
	}
	minor, _ := strconv.Atoi(string(v[2]))
	patch, _ := strconv.Atoi(string(v[3]))
	dir := t.TempDir()
	src := filepath.Join(dir, "shim.c")
	code := fmt.Sprintf(`int sqlite3_libversion_number(void) { return %d; }
const char *sqlite3_libversion(void) { return %q; }
const char *sqlite3_sourceid(void) { return %q; }
`, 3000000+minor*1000+patch, v[1], id)
	if err := os.WriteFile(src, []byte(code), 0o644); err != nil {
		t.Fatal(err)
	}
	so := filepath.Join(dir, "shim.so")
	if out, err := exec.Command("cc", "-shared", "-fPIC", "-O2", "-o", so, src).CombinedOutput(); err != nil {
		t.Fatalf("cc the SQLite version shim: %v\n%s", err, out)
	}
	return so
}

// readerBusy waits up to within for the reader of dsn to have no busy
// backend; it returns the query of one still busy, or "".
func readerBusy(t *testing.T, dsn string, within time.Duration) string {
	t.Helper()
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	admin, err := pgx.Connect(ctx, testenv.Postgres(t))
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(ctx)
	deadline := time.Now().Add(within)
	for {
		var q string
		err := admin.QueryRow(ctx, `SELECT left(query, 500) FROM pg_stat_activity WHERE usename = $1 AND state <> 'idle' LIMIT 1`, u.User.Username()).Scan(&q)
		if errors.Is(err, pgx.ErrNoRows) {
			return ""
		}
		if err != nil {
			t.Fatal(err)
		}
		if time.Now().After(deadline) {
			return q
		}
		time.Sleep(200 * time.Millisecond)
	}
}
