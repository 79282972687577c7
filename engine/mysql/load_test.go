package mysql_test

import (
	"context"
	"database/sql"
	"fmt"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/benchdb"
	"github.com/sqlgym/sqlgym/catalog"
	"github.com/sqlgym/sqlgym/internal/testenv"
	"github.com/sqlgym/sqlgym/sqltext"
	"github.com/sqlgym/sqlgym/verify"
	"github.com/sqlgym/sqlgym/verify/extract"
)

// spiderSized is the size of the benchmark database copied into MariaDB:
// Spider's databases are under 1 MB, as is this one.
const spiderSized = 512 << 10

// loadBatch is `sqlgym bench verify`'s database (benchdb, Spider-sized)
// copied from SQLite into a MariaDB database a SELECT-only account reads,
// and its GRPO batch of 32 tasks x 16 answers: the verifier's --db URL,
// the reader's driver DSN and the batch.
func loadBatch(tb testing.TB) (ref, readerDSN string, batch benchdb.Batch) {
	tb.Helper()
	admin := testenv.MySQL(tb)
	ctx := context.Background()
	path := filepath.Join(tb.TempDir(), "bench.sqlite")
	if _, err := benchdb.Generate(ctx, path, benchdb.Config{Seed: benchdb.DefaultSeed, Size: spiderSized}); err != nil {
		tb.Fatal(err)
	}
	reader, db := testenv.MySQLReader(tb, nil)
	copySQLite(ctx, tb, testenv.MySQLWithDB(tb, admin, db), db, path, "")
	batch, err := benchdb.NewBatch(benchdb.DefaultSeed, benchdb.MaxTasks)
	if err != nil {
		tb.Fatal(err)
	}
	for i := range batch.Tasks {
		batch.Tasks[i].SQL = inMySQL(batch.Tasks[i].SQL)
	}
	for i := range batch.Answers {
		batch.Answers[i].SQL = inMySQL(batch.Answers[i].SQL)
		batch.Answers[i].Completion = inMySQL(batch.Answers[i].Completion)
	}
	return benchdb.DBName + "=" + testenv.MySQLURL(tb, reader), reader, batch
}

// strftime(FMT, col) and CAST(... AS REAL) are the SQLite spellings
// benchdb's statements use that MySQL does not have; inMySQL writes them as
// MySQL does (DATE_FORMAT, DOUBLE): the batch a policy writing for MySQL
// would sample.
var strftime = regexp.MustCompile(`strftime\('(%[a-zA-Z])', ([a-z_.]+)\)`)

func inMySQL(q string) string {
	q = strftime.ReplaceAllString(q, "DATE_FORMAT($2, '$1')")
	return strings.ReplaceAll(q, " AS REAL)", " AS DOUBLE)")
}

func verifyBatch(tb testing.TB, ref string, batch benchdb.Batch) []verify.Result {
	tb.Helper()
	cat, err := catalog.New(catalog.Config{Refs: []string{ref}, CacheDir: tb.TempDir()})
	if err != nil {
		tb.Fatal(err)
	}
	defer cat.Close()
	return verify.New(cat, batch.Tasks, verify.Config{}).VerifyBatch(context.Background(), batch.Answers)
}

// TestLoadBatchVerdicts verifies the 512-answer batch on MariaDB idle, then
// again with a fresh verifier while 3 CPU burners per CPU run (shell loops,
// killed when the test ends): every answer must get the same outcome and
// reward, and no reward may be null (no infrastructure failure, no gold
// that fails). The batch is benchdb's, with its SQLite
// spellings written as MySQL's (inMySQL).
func TestLoadBatchVerdicts(t *testing.T) {
	testenv.Slow(t, "verifies 512 answers on MariaDB twice, the second time beside 3 CPU burners per CPU")
	ref, _, batch := loadBatch(t)
	idle := verifyBatch(t, ref, batch)
	outcomes := map[sqlgym.Outcome]int{}
	for _, r := range idle {
		outcomes[r.Outcome]++
	}
	t.Logf("idle: %d answers, outcomes %v", len(idle), outcomes)
	if outcomes[sqlgym.OutcomeGoldError] > 0 || outcomes[sqlgym.OutcomeCorrect] < len(idle)/2 {
		t.Errorf("idle outcomes %v: want every gold to run and most answers right", outcomes)
	}

	n := 3 * runtime.NumCPU()
	var burners []*exec.Cmd
	t.Cleanup(func() {
		for _, b := range burners {
			b.Process.Kill()
			b.Wait()
		}
	})
	for i := 0; i < n; i++ {
		b := exec.Command("sh", "-c", "while :; do :; done")
		if err := b.Start(); err != nil {
			t.Fatal(err)
		}
		burners = append(burners, b)
	}
	time.Sleep(500 * time.Millisecond) // let the burners get going
	loaded := verifyBatch(t, ref, batch)
	flips := 0
	for i := range idle {
		a, b := idle[i], loaded[i]
		if a.Outcome != b.Outcome || (a.Reward == nil) != (b.Reward == nil) || a.Reward != nil && *a.Reward != *b.Reward {
			flips++
			t.Errorf("answer %d (%s): idle %s, with %d burners %s (%s)", i, a.TaskID, a.Outcome, n, b.Outcome, b.Detail)
		}
		if a.Reward == nil || b.Reward == nil {
			if a.Outcome != sqlgym.OutcomeGoldError {
				t.Errorf("answer %d (%s): null reward (%s / %s): %s %s", i, a.TaskID, a.Outcome, b.Outcome, a.Detail, b.Detail)
			}
		}
	}
	t.Logf("with %d CPU burners: %d of %d verdicts flipped", n, flips, len(idle))
}

// distinctSQL is each distinct statement of the batch a warm verifier must
// run: the golds once each, and every answer whose key is not a gold's.
func distinctSQL(batch benchdb.Batch) []string {
	seen := map[string]bool{}
	var out []string
	add := func(q string) {
		if k := sqltext.Key(sqlgym.DialectMySQL, q); !seen[k] {
			seen[k] = true
			out = append(out, q)
		}
	}
	for _, t := range batch.Tasks {
		add(t.SQL)
	}
	for _, a := range batch.Answers {
		q := a.SQL
		if q == "" {
			ex := extract.FromCompletion(a.Completion, a.FinishReason)
			if ex.Status != extract.StatusOK {
				continue
			}
			q = ex.SQL
		}
		add(q)
	}
	return out
}

// BenchmarkLoadBatch is the cost of verifying the 512-answer batch on
// MariaDB (a fresh verifier each time: golds run, nothing cached across
// iterations) against the floor, each distinct statement of the batch run
// once through the bare driver on one connection, reading every row; the
// two run side by side in one benchmark run so the machine's load weighs
// on both alike.
func BenchmarkLoadBatch(b *testing.B) {
	ref, reader, batch := loadBatch(b)
	stmts := distinctSQL(batch)
	b.Run("verifier", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			verifyBatch(b, ref, batch)
		}
	})
	b.Run(fmt.Sprintf("driver_%d_statements", len(stmts)), func(b *testing.B) {
		db, err := sql.Open("mysql", reader)
		if err != nil {
			b.Fatal(err)
		}
		defer db.Close()
		db.SetMaxOpenConns(1)
		ctx := context.Background()
		for i := 0; i < b.N; i++ {
			for _, q := range stmts {
				rows, err := db.QueryContext(ctx, q)
				if err != nil {
					continue // an answer MariaDB refuses costs its round trip
				}
				cols, _ := rows.Columns()
				vals := make([]sql.RawBytes, len(cols))
				ptrs := make([]any, len(cols))
				for j := range vals {
					ptrs[j] = &vals[j]
				}
				for rows.Next() {
					rows.Scan(ptrs...)
				}
				rows.Close()
			}
		}
	})
}
