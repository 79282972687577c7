package baseline_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/baseline"
	"github.com/sqlgym/sqlgym/catalog"
	"github.com/sqlgym/sqlgym/importer"
	"github.com/sqlgym/sqlgym/internal/testenv"
	"github.com/sqlgym/sqlgym/model"
	"github.com/sqlgym/sqlgym/schema"
	"github.com/sqlgym/sqlgym/stats"
	"github.com/sqlgym/sqlgym/verify"
)

// copyTree copies the Spider databases into dir, so nothing can touch the
// shared originals.
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestSpiderHoldout runs the baseline the way a benchmark would on the
// Spider dev databases: split the questions by hash, index the training
// split, answer the held-out split k = 4 times at T = 0.7 and judge every
// answer with package verify. It logs pass@1 and pass@4 and checks them
// against floors well under what the baseline scores, so a change that
// breaks retrieval or adaptation fails here.
func TestSpiderHoldout(t *testing.T) {
	data := testenv.SharedData(t)
	tasks, _, err := importer.Import("spider", filepath.Join(data, "spider_dev"))
	if err != nil {
		t.Fatal(err)
	}
	sqlgym.AssignSplits(tasks, "", 0.2)
	dbDir := t.TempDir()
	copyTree(t, filepath.Join(data, "spider_dev", "database"), dbDir)
	cat, err := catalog.New(catalog.Config{DBDir: dbDir, CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer cat.Close()
	ctx := context.Background()

	// Known values from each database's column samples.
	values := map[string][]string{}
	for _, tk := range tasks {
		if _, done := values[tk.DB]; done {
			continue
		}
		values[tk.DB] = nil
		eng, err := cat.Engine(ctx, tk.DB)
		if err != nil {
			continue // wta_1 is not in the shared copy
		}
		s, err := schema.Load(ctx, eng, 5)
		if err != nil {
			t.Fatalf("schema of %s: %v", tk.DB, err)
		}
		values[tk.DB] = baseline.KnownValues(s)
	}

	v := verify.New(cat, tasks, verify.Config{})
	const k = 4
	score := func(opts baseline.Options) (pass1, passK float64, n int) {
		p, err := baseline.New(tasks, opts)
		if err != nil {
			t.Fatal(err)
		}
		var answers []verify.Answer
		for _, tk := range tasks {
			if tk.Split != sqlgym.SplitHoldout {
				continue
			}
			if _, err := cat.Resolve(tk.DB); err != nil {
				continue
			}
			cs, err := p.Complete(ctx, model.Prompt{TaskID: tk.ID}, k)
			if err != nil {
				t.Fatal(err)
			}
			for i, c := range cs {
				answers = append(answers, verify.Answer{TaskID: tk.ID, Sample: i, Completion: c.Text, FinishReason: c.FinishReason})
			}
		}
		counts := map[string]*stats.TaskCounts{}
		var order []string
		for _, r := range v.VerifyBatch(ctx, answers) {
			if !r.Outcome.Scored() {
				continue
			}
			c := counts[r.TaskID]
			if c == nil {
				c = &stats.TaskCounts{}
				counts[r.TaskID] = c
				order = append(order, r.TaskID)
			}
			c.N++
			if r.Outcome == sqlgym.OutcomeCorrect {
				c.C++
			}
		}
		for _, id := range order {
			c := counts[id]
			if c.N < k {
				continue // a sample hit a gold error: the task is not scored
			}
			pass1 += stats.PassAtK(c.N, c.C, 1)
			passK += stats.PassAtK(c.N, c.C, k)
			n++
		}
		return pass1 / float64(n), passK / float64(n), n
	}

	g1, _, n := score(baseline.Options{Seed: 1, Values: values})
	p1, p4, _ := score(baseline.Options{Temperature: 0.7, Seed: 1, Values: values})
	r1, r4, _ := score(baseline.Options{Temperature: 0.7, Seed: 1})
	t.Logf("Spider dev, %d scored held-out tasks: T=0 pass@1 %.3f; T=0.7 k=4 pass@1 %.3f pass@4 %.3f; without known values pass@1 %.3f pass@4 %.3f",
		n, g1, p1, p4, r1, r4)
	if n < 100 {
		t.Fatalf("only %d held-out tasks scored", n)
	}
	if p1 < 0.30 || p4 < p1 || g1 < 0.30 {
		t.Errorf("baseline scores fell: T=0 pass@1 %.3f, T=0.7 pass@1 %.3f pass@4 %.3f", g1, p1, p4)
	}
}
