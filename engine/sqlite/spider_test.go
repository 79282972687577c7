package sqlite

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"testing"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/internal/testenv"
)

type spiderQuestion struct {
	ID   string `json:"id"`
	DB   string `json:"db_id"`
	Gold string `json:"gold_sql"`
}

// spiderDev copies the Spider dev databases into a temp dir (the shared
// originals are never opened) and opens an engine on each.
func spiderDev(tb testing.TB) ([]spiderQuestion, map[string]*Engine, map[string]string) {
	tb.Helper()
	root := filepath.Join(testenv.SharedData(tb), "spider_dev")
	f, err := os.Open(filepath.Join(root, "dev.jsonl"))
	if err != nil {
		tb.Fatalf("spider dev questions: %v", err)
	}
	defer f.Close()
	var qs []spiderQuestion
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var q spiderQuestion
		if err := json.Unmarshal(sc.Bytes(), &q); err != nil {
			tb.Fatalf("dev.jsonl: %v", err)
		}
		qs = append(qs, q)
	}
	if err := sc.Err(); err != nil {
		tb.Fatal(err)
	}
	engines := map[string]*Engine{}
	paths := map[string]string{}
	for _, q := range qs {
		if _, ok := paths[q.DB]; ok {
			continue
		}
		src := filepath.Join(root, "database", q.DB, q.DB+".sqlite")
		if _, err := os.Stat(src); err != nil {
			paths[q.DB] = "" // wta_1 is not in the shared data
			continue
		}
		path := testenv.CopyFile(tb, src)
		eng, err := Open(path, Options{})
		if err != nil {
			tb.Fatalf("open %s: %v", q.DB, err)
		}
		tb.Cleanup(func() { eng.Close() })
		engines[q.DB] = eng
		paths[q.DB] = path
	}
	return qs, engines, paths
}

func TestSpiderDevGolds(t *testing.T) {
	qs, engines, paths := spiderDev(t)
	before := map[string]string{}
	for db, p := range paths {
		if p != "" {
			before[db], _ = FileDigest(p)
		}
	}
	ok, noDB := 0, 0
	kinds := map[string]int{}
	for _, q := range qs {
		eng := engines[q.DB]
		if eng == nil {
			noDB++
			continue
		}
		_, st, err := eng.QueryStats(context.Background(), q.Gold, sqlgym.Limits{})
		if err == nil {
			ok++
			// The default budget is calibrated to bound every answer's
			// cost (docs/sandbox-sqlite.md): an honest Spider query must
			// stay far below it (the largest needs 1e6 of 2e8).
			if st.VMSteps > sqlgym.DefaultVMSteps/50 {
				t.Errorf("%s: %d charged steps, more than 2 %% of the default budget %d: %s", q.ID, st.VMSteps, int64(sqlgym.DefaultVMSteps), q.Gold)
			}
			continue
		}
		var ee *sqlgym.ExecError
		if !errors.As(err, &ee) {
			t.Errorf("%s: a gold failed with something other than an ExecError: %v", q.ID, err)
			continue
		}
		if ee.Kind == sqlgym.ErrKindForbidden || ee.Kind == sqlgym.ErrKindMulti {
			t.Errorf("%s: the sandbox refused a gold (%v): %s", q.ID, err, q.Gold)
		}
		kinds[string(ee.Kind)]++
	}
	var summary []string
	for k, n := range kinds {
		summary = append(summary, k+"="+strconv.Itoa(n))
	}
	sort.Strings(summary)
	t.Logf("spider dev golds: %d of %d run (%d on a missing database); failures by kind: %v", ok, len(qs), noDB, summary)
	// The README counts about 71 golds that fail on these converted
	// databases; far fewer successes means the sandbox refuses valid SQL.
	if ok < 880 {
		t.Errorf("only %d spider dev golds ran, want about 900", ok)
	}
	for db, d := range before {
		if after, _ := FileDigest(paths[db]); after != d {
			t.Errorf("%s changed while running golds", db)
		}
	}
}

// BenchmarkSpiderDevGolds executes every runnable Spider dev gold once per
// iteration and reports the mean time per query.
func BenchmarkSpiderDevGolds(b *testing.B) {
	qs, engines, _ := spiderDev(b)
	var runnable []spiderQuestion
	for _, q := range qs {
		if eng := engines[q.DB]; eng != nil {
			if _, err := eng.Query(context.Background(), q.Gold, sqlgym.Limits{}); err == nil {
				runnable = append(runnable, q)
			}
		}
	}
	b.ResetTimer()
	for b.Loop() {
		for _, q := range runnable {
			if _, err := engines[q.DB].Query(context.Background(), q.Gold, sqlgym.Limits{}); err != nil {
				b.Fatalf("%s: %v", q.ID, err)
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(runnable)), "ns/query")
	b.ReportMetric(float64(len(runnable)), "queries")
}
