package eval_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"math"
	"math/bits"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/catalog"
	"github.com/sqlgym/sqlgym/eval"
	"github.com/sqlgym/sqlgym/eval/evaltest"
	"github.com/sqlgym/sqlgym/ledger"
	"github.com/sqlgym/sqlgym/model"
	"github.com/sqlgym/sqlgym/report"
	"github.com/sqlgym/sqlgym/rundir"
	"github.com/sqlgym/sqlgym/stats"
)

const seed0 = 100

// setup returns a catalog with the built-in shop database in a temporary
// cache and a config that samples through srv with per-sample seeds.
func setup(t testing.TB, srv *evaltest.Server, tasks []sqlgym.Task, out string) eval.Config {
	t.Helper()
	cat, err := catalog.New(catalog.Config{CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cat.Close() })
	// Short backoff: a test must not wait out the production retry policy.
	client, err := model.New(srv.BaseURL(), model.WithModel("scripted"), model.WithMaxRetries(2), model.WithBackoff(time.Millisecond, 2*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	seed := seed0
	dec := model.Decoding{Temperature: model.Float(0.7)}
	return eval.Config{
		Out: out, Tasks: tasks, TasksFile: "tasks.jsonl", TasksHash: "hash-of-tasks", Split: "all",
		DBs: cat, Policy: model.NewOpenAIPolicy(client, "scripted", dec),
		Reseed: func(s int) model.Policy {
			d := dec
			d.Seed = model.Int(s)
			return model.NewOpenAIPolicy(client, "scripted", d)
		},
		PolicyKind: "openai", Model: "scripted", BaseURL: srv.BaseURL(),
		Decoding: rundir.Decoding{K: 4, Temperature: 0.7, Seed: &seed},
		Version:  "test", Concurrency: 3,
		Ledger: ledger.PathFor(out), Command: []string{"sqlgym", "eval", "--out", out},
	}
}

func counts(samples []rundir.Sample) map[string][2]int {
	out := map[string][2]int{}
	for _, s := range samples {
		c := out[s.TaskID]
		c[0]++
		if s.Outcome == sqlgym.OutcomeCorrect {
			c[1]++
		}
		out[s.TaskID] = c
	}
	return out
}

func TestPassAtKOnScriptedServer(t *testing.T) {
	srv := evaltest.New(evaltest.ShopReplies(), seed0)
	defer srv.Close()
	out := filepath.Join(t.TempDir(), "runs", "scripted")
	cfg := setup(t, srv, evaltest.ShopTasks(), out)
	res, err := eval.Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if res.Drawn != 16 || res.Missing != 0 || res.Resumed {
		t.Fatalf("drew %d, missing %d, resumed %v", res.Drawn, res.Missing, res.Resumed)
	}
	samples, err := rundir.ReadSamples(out)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][2]int{"t1": {4, 4}, "t2": {4, 2}, "t3": {4, 1}, "t4": {4, 0}}
	if got := counts(samples); !equalCounts(got, want) {
		t.Fatalf("(n, c) per task %v, want %v", got, want)
	}
	// Each sample i was asked with seed seed0+i, once.
	for _, tk := range evaltest.ShopTasks() {
		asked := srv.Asked(tk.Question)
		slices.Sort(asked)
		if !slices.Equal(asked, []int{0, 1, 2, 3}) {
			t.Fatalf("%s: samples asked %v", tk.ID, asked)
		}
	}

	s := res.Summary
	check := func(key string, value float64) {
		t.Helper()
		m, ok := s.Metrics[key]
		if !ok || m.Value != value {
			t.Fatalf("%s = %+v, want %v", key, m, value)
		}
	}
	check("pass@1", 0.4375)
	check("pass@4", 0.75)
	check("pass^4", 0.25)
	// The intervals, recomputed here from the per-task values (tasks in id
	// order: t1..t4) by the algorithm docs/statistics.md documents: 2000
	// resamples of 4 tasks with replacement from PCG(seed, stream) with
	// Lemire's bounded integers, percentiles by Hyndman-Fan type 7.
	//
	// By hand: 4 tasks give 256 equally likely resamples. For pass@1 the
	// resampled mean's CDF is 0.0195 at 0.0625 and 0.0586 at 0.125, 0.9648 at
	// 0.75 and 0.9805 at 0.8125, so the 2.5% and 97.5% points are 0.125 and
	// 0.8125; for pass@4 (values 1,1,1,0) 0.0039 at 0 and 0.0508 at 0.25 give
	// 0.25, and the top is 1; for pass^4 (1,0,0,0) 0.3164 at 0 gives 0, and
	// 0.9492 at 0.5, 0.9961 at 0.75 give 0.75. 2000 resamples land order
	// statistics 49/50 and 1949/1950 inside those steps.
	hand := map[string][2]float64{"pass@1": {0.125, 0.8125}, "pass@4": {0.25, 1}, "pass^4": {0, 0.75}}
	for key, ci := range hand {
		if s.Metrics[key].CI != ci {
			t.Errorf("%s interval %v, by hand %v", key, s.Metrics[key].CI, ci)
		}
	}
	for key, vals := range map[string][]float64{
		"pass@1": {1, 0.5, 0.25, 0},
		"pass@4": {1, 1, 1, 0},
		"pass^4": {1, 0, 0, 0},
	} {
		lo, hi := bootstrap95(vals, report.Resamples, report.Seed)
		got := s.Metrics[key].CI
		if got[0] != lo || got[1] != hi {
			t.Errorf("%s interval %v, recomputed [%v, %v]", key, got, lo, hi)
		}
		iv := stats.BootstrapMean(vals, report.Resamples, report.Seed)
		if iv.Lo != lo || iv.Hi != hi {
			t.Errorf("%s: the test's bootstrap [%v, %v] disagrees with stats.BootstrapMean [%v, %v]", key, lo, hi, iv.Lo, iv.Hi)
		}
		if lo > stats.Mean(vals) || hi < stats.Mean(vals) || lo < 0 || hi > 1 {
			t.Errorf("%s interval [%v, %v] does not hold its value", key, lo, hi)
		}
	}
	if s.Tasks != 4 || s.K != 4 || s.Missing != 0 || s.Outcomes["correct"] != 7 || s.Outcomes["truncated"] != 2 ||
		s.Outcomes["no_query"] != 2 || s.Outcomes["error"] != 2 || s.Outcomes["wrong"] != 3 {
		t.Fatalf("summary %+v", s)
	}

	// The folder: summary.json as returned, a manifest with the settings.
	stored, err := rundir.ReadSummary(out)
	if err != nil || stored.Metrics["pass@4"].Value != 0.75 || stored.Metrics["pass^4"].CI != s.Metrics["pass^4"].CI {
		t.Fatalf("summary.json %+v %v", stored, err)
	}
	m, err := rundir.ReadManifest(out)
	if err != nil {
		t.Fatal(err)
	}
	if m.ConfigHash == "" || m.ConfigHash != eval.ConfigHash(m) || m.Ended == nil || m.Policy != "openai" || m.Model != "scripted" ||
		m.Mode != "multiset" || !strings.HasPrefix(m.DBDigests["shop"], "sha256:") || m.PromptHash == "" || m.TaskCount != 4 ||
		*m.Decoding.Seed != seed0 || !strings.Contains(m.Rewards, "wrong=0.1") {
		t.Fatalf("manifest %+v", m)
	}
	// Samples carry what a report needs.
	for _, sm := range samples {
		if sm.PromptHash == "" || sm.Completion == "" || sm.DB != "shop" || sm.CompletionTokens == 0 || sm.PromptTokens == 0 {
			t.Fatalf("sample %s/%d lacks fields: %+v", sm.TaskID, sm.Sample, sm)
		}
		switch {
		case sm.TaskID == "t3" && sm.Sample == 1:
			if sm.Outcome != sqlgym.OutcomeTruncated || sm.Reward != nil || sm.FinishReason != "length" {
				t.Fatalf("cut-off reply: %+v", sm)
			}
		case sm.TaskID == "t3" && sm.Sample == 2:
			if sm.Outcome != sqlgym.OutcomeWrong || sm.Gold != "SELECT max(total_amount) FROM orders" ||
				sm.PredPreview == nil || sm.GoldPreview == nil || len(sm.GoldPreview.Rows) != 1 ||
				sm.PredPreview.Rows[0][0] == sm.GoldPreview.Rows[0][0] || sm.Reward == nil || *sm.Reward != 0.1 {
				t.Fatalf("wrong answer without previews: %+v", sm)
			}
		case sm.TaskID == "t3" && sm.Sample == 3:
			if sm.Outcome != sqlgym.OutcomeError || sm.ErrorKind == "" || sm.GoldPreview == nil {
				t.Fatalf("failing query: %+v", sm)
			}
		case sm.Outcome == sqlgym.OutcomeCorrect:
			if sm.Gold != "" || sm.PredPreview != nil || sm.Reward == nil || *sm.Reward != 1 {
				t.Fatalf("correct sample carries failure data: %+v", sm)
			}
		}
	}
	// One ledger line with the headline.
	entries, _, err := ledger.Read(ledger.PathFor(out))
	if err != nil || len(entries) != 1 || entries[0].Headline["pass@1"] != 0.4375 || entries[0].ConfigHash != m.ConfigHash || entries[0].Output != out {
		t.Fatalf("ledger %+v %v", entries, err)
	}

	// Running again finds nothing to do and asks the server nothing.
	calls := srv.Calls.Load()
	again, err := eval.Run(context.Background(), setup(t, srv, evaltest.ShopTasks(), out))
	if err != nil {
		t.Fatal(err)
	}
	if !again.Resumed || again.Present != 16 || again.Drawn != 0 || srv.Calls.Load() != calls ||
		again.Summary.Metrics["pass@1"] != s.Metrics["pass@1"] {
		t.Fatalf("second run: %+v, %d new calls", again, srv.Calls.Load()-calls)
	}
	m2, _ := rundir.ReadManifest(out)
	if !m2.Started.Equal(m.Started) {
		t.Fatalf("a resumed run moved the start from %v to %v", m.Started, m2.Started)
	}
}

func equalCounts(a, b map[string][2]int) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// bootstrap95 is docs/statistics.md's percentile bootstrap of the mean,
// written out independently of package stats.
func bootstrap95(vals []float64, b int, seed uint64) (lo, hi float64) {
	pcg := rand.NewPCG(seed, 0x73716c67796d5354)
	intn := func(n int) int {
		un := uint64(n)
		h, l := bits.Mul64(pcg.Uint64(), un)
		if l < un {
			for thr := -un % un; l < thr; {
				h, l = bits.Mul64(pcg.Uint64(), un)
			}
		}
		return int(h)
	}
	means := make([]float64, b)
	for r := range means {
		sum := 0.0
		for range vals {
			sum += vals[intn(len(vals))]
		}
		means[r] = sum / float64(len(vals))
	}
	slices.Sort(means)
	q := func(p float64) float64 {
		h := p * float64(b-1)
		i := int(math.Floor(h))
		return means[i] + float64((h-float64(i))*(means[i+1]-means[i]))
	}
	return q(0.025), q(0.975)
}

func TestModelServerDownLeavesSamplesMissing(t *testing.T) {
	srv := evaltest.New(evaltest.ShopReplies(), seed0)
	defer srv.Close()
	down := evaltest.ShopTasks()[1] // t2, which gets 2 of 4 right
	srv.SetDown(down.Question, true)
	out := filepath.Join(t.TempDir(), "run")
	res, err := eval.Run(context.Background(), setup(t, srv, evaltest.ShopTasks(), out))
	if err != nil {
		t.Fatal(err)
	}
	if res.Missing != 4 || res.MissingInfra != 4 || res.Drawn != 12 || !strings.Contains(res.FirstFailure, "503") {
		t.Fatalf("missing %d (infra %d), drawn %d, failure %q", res.Missing, res.MissingInfra, res.Drawn, res.FirstFailure)
	}
	if srv.Fails.Load() != 4*3 {
		t.Fatalf("%d failed requests, want 4 samples x 3 attempts", srv.Fails.Load())
	}
	samples, _ := rundir.ReadSamples(out)
	got := counts(samples)
	if _, written := got["t2"]; written || got["t1"] != [2]int{4, 4} || got["t3"] != [2]int{4, 1} {
		t.Fatalf("a server failure was written as a sample: %v", got)
	}
	// Not scored: pass@1 is over the three tasks that were sampled.
	if s := res.Summary; s.Missing != 4 || s.Tasks != 3 || math.Abs(s.Metrics["pass@1"].Value-(1+0.25+0)/3) > 1e-12 {
		t.Fatalf("summary with a task missing: %+v", s)
	}
	stored, _ := rundir.ReadSummary(out)
	if stored.Missing != 4 {
		t.Fatalf("summary.json records %d missing", stored.Missing)
	}

	srv.SetDown(down.Question, false)
	res, err = eval.Run(context.Background(), setup(t, srv, evaltest.ShopTasks(), out))
	if err != nil {
		t.Fatal(err)
	}
	if res.Missing != 0 || res.Drawn != 4 || res.Present != 12 || res.Summary.Metrics["pass@1"].Value != 0.4375 {
		t.Fatalf("rerun: drew %d, kept %d, missing %d, summary %+v", res.Drawn, res.Present, res.Missing, res.Summary)
	}
}

func TestAnotherConfigurationIsRefused(t *testing.T) {
	srv := evaltest.New(evaltest.ShopReplies(), seed0)
	defer srv.Close()
	out := filepath.Join(t.TempDir(), "run")
	tasks := evaltest.ShopTasks()[:1]
	if _, err := eval.Run(context.Background(), setup(t, srv, tasks, out)); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(filepath.Join(out, rundir.SamplesFile))
	cfg := setup(t, srv, tasks, out)
	cfg.Decoding.Temperature = 0.2
	cfg.Decoding.K = 8
	_, err := eval.Run(context.Background(), cfg)
	var ue *sqlgym.UserError
	if !errors.As(err, &ue) || !strings.Contains(ue.Msg, "--temperature (0.7 here, 0.2 now)") || !strings.Contains(ue.Msg, "--k (4 here, 8 now)") ||
		!strings.Contains(ue.Hint, "new --out") {
		t.Fatalf("another configuration: %v", err)
	}
	after, _ := os.ReadFile(filepath.Join(out, rundir.SamplesFile))
	if string(before) != string(after) {
		t.Fatal("the refused run touched samples.jsonl")
	}
	// The concurrency is not part of the configuration: the run continues.
	cfg = setup(t, srv, tasks, out)
	cfg.Concurrency = 1
	if _, err := eval.Run(context.Background(), cfg); err != nil {
		t.Fatalf("a run with another concurrency was refused: %v", err)
	}
	// Samples without a manifest are nobody's run to continue.
	stray := t.TempDir()
	os.WriteFile(filepath.Join(stray, rundir.SamplesFile), before, 0o644)
	if _, err := eval.Run(context.Background(), setup(t, srv, tasks, stray)); !errors.As(err, &ue) || !strings.Contains(ue.Msg, "no manifest.json") {
		t.Fatalf("a folder of samples without manifest: %v", err)
	}
}

func TestInfraErrorSamplesAreJudgedAgainWithoutResampling(t *testing.T) {
	srv := evaltest.New(evaltest.ShopReplies(), seed0)
	defer srv.Close()
	out := filepath.Join(t.TempDir(), "run")
	tasks := evaltest.ShopTasks()[:2]
	if _, err := eval.Run(context.Background(), setup(t, srv, tasks, out)); err != nil {
		t.Fatal(err)
	}
	// As the run would have written them had the database been down for
	// two samples: the completion kept, the verdict infra_error.
	samples, _ := rundir.ReadSamples(out)
	var lines []byte
	for i := range samples {
		s := samples[i]
		if s.TaskID == "t2" && (s.Sample == 0 || s.Sample == 2) {
			s.Outcome, s.Reward, s.SQL, s.Detail = sqlgym.OutcomeInfraError, nil, "", "database unavailable: connection refused"
		}
		b, _ := jsonLine(&s)
		lines = append(lines, b...)
	}
	os.WriteFile(filepath.Join(out, rundir.SamplesFile), lines, 0o644)
	calls := srv.Calls.Load()
	res, err := eval.Run(context.Background(), setup(t, srv, tasks, out))
	if err != nil {
		t.Fatal(err)
	}
	if res.Rejudged != 2 || res.Drawn != 0 || res.Present != 6 || srv.Calls.Load() != calls {
		t.Fatalf("rejudged %d, drew %d, kept %d, %d model calls", res.Rejudged, res.Drawn, res.Present, srv.Calls.Load()-calls)
	}
	after, _ := rundir.ReadSamples(out)
	for _, s := range after {
		if s.TaskID != "t2" {
			continue
		}
		want := map[int]sqlgym.Outcome{0: sqlgym.OutcomeCorrect, 1: sqlgym.OutcomeCorrect, 2: sqlgym.OutcomeWrong, 3: sqlgym.OutcomeNoQuery}[s.Sample]
		if s.Outcome != want || s.Completion == "" {
			t.Fatalf("t2/%d after rejudging: %s (%q)", s.Sample, s.Outcome, s.Completion)
		}
	}
	if res.Summary.Metrics["pass@1"].Value != (1+0.5)/2 {
		t.Fatalf("summary after rejudging %+v", res.Summary)
	}
}

func jsonLine(s *rundir.Sample) ([]byte, error) {
	b, err := json.Marshal(s)
	return append(b, '\n'), err
}

// syncBuffer is a bytes.Buffer safe for the progress goroutine.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func TestProgressLinesOnAClock(t *testing.T) {
	srv := evaltest.New(evaltest.ShopReplies(), seed0)
	defer srv.Close()
	srv.SetDelay(25 * time.Millisecond)
	var buf syncBuffer
	cfg := setup(t, srv, evaltest.ShopTasks(), filepath.Join(t.TempDir(), "run"))
	cfg.Concurrency, cfg.Progress, cfg.ProgressEvery = 1, &buf, 100*time.Millisecond
	if _, err := eval.Run(context.Background(), cfg); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	// 16 samples one at a time at 25 ms or more each take 0.4 s or more:
	// a few lines, not one per sample.
	if len(lines) < 2 || len(lines) >= 16 {
		t.Fatalf("%d progress lines for 16 samples:\n%s", len(lines), buf.String())
	}
	re := regexp.MustCompile(`^eval .*run: \d+/16 samples, [0-9.]+/s(, ETA \d+\S*)?(, pass@1 so far [01]\.\d{3})?$`)
	for _, l := range lines {
		if !re.MatchString(l) {
			t.Fatalf("progress line %q", l)
		}
	}
	if !strings.Contains(buf.String(), "ETA") || !strings.Contains(buf.String(), "pass@1 so far") {
		t.Fatalf("no ETA or running pass@1:\n%s", buf.String())
	}
}

func TestSecondProcessOnOneFolderIsRefused(t *testing.T) {
	srv := evaltest.New(evaltest.ShopReplies(), seed0)
	defer srv.Close()
	srv.SetDelay(100 * time.Millisecond)
	out := filepath.Join(t.TempDir(), "run")
	tasks := evaltest.ShopTasks()[:1]
	first := make(chan error, 1)
	cfg := setup(t, srv, tasks, out) // on the test goroutine: setup may t.Fatal
	cfg.Concurrency = 1
	go func() {
		_, err := eval.Run(context.Background(), cfg)
		first <- err
	}()
	for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(time.Millisecond) {
		if _, err := os.Stat(filepath.Join(out, rundir.SamplesFile)); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the first run never opened its samples file")
		}
	}
	_, err := eval.Run(context.Background(), setup(t, srv, tasks, out))
	var ue *sqlgym.UserError
	if !errors.As(err, &ue) || !strings.Contains(ue.Msg, "another sqlgym eval is writing") {
		t.Fatalf("a second run on a folder in use: %v", err)
	}
	if err := <-first; err != nil {
		t.Fatal(err)
	}
	if got, _ := rundir.ReadSamples(out); len(got) != 4 {
		t.Fatalf("%d samples after the first run", len(got))
	}
}
