package eval_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/engine/duckdb"
	"github.com/sqlgym/sqlgym/eval/evaltest"
	"github.com/sqlgym/sqlgym/internal/cmd/cmdkit"
	"github.com/sqlgym/sqlgym/internal/cmd/root"
	"github.com/sqlgym/sqlgym/rundir"
)

// These tests run sqlgym as a process of its own, so that kill -9, exit
// codes and the printed messages are the user's. That process is this
// test binary started again as the command: TestMain hands it to root.Main,
// all that cmd/sqlgym's main does. Building the real binary instead cost
// a link of the whole program (about 40 s on two busy cores) in every run
// of the suite; .ci/run still builds and runs it.

// asCLI in a child's environment makes TestMain run the command.
const asCLI = "SQLGYM_EVAL_TEST_AS_CLI=1"

func TestMain(m *testing.M) {
	duckdb.MaybeServeWorker() // the engine re-executes this binary for its workers
	if os.Getenv("SQLGYM_EVAL_TEST_AS_CLI") == "1" {
		os.Exit(root.Main(os.Args[1:], cmdkit.StdIO()))
	}
	os.Exit(m.Run())
}

// sqlgymBinary is the program to start with asCLI in its environment.
func sqlgymBinary(t *testing.T) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatalf("the test binary's own path: %v", err)
	}
	return exe
}

type cliRun struct {
	code           int
	stdout, stderr string
}

// runCLI runs the binary with the shop database cached under cache.
func runCLI(t *testing.T, cache string, args ...string) cliRun {
	t.Helper()
	cmd := exec.Command(sqlgymBinary(t), args...)
	cmd.Env = append(os.Environ(), asCLI, "SQLGYM_CACHE="+cache, "OPENAI_API_KEY=")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	r := cliRun{stdout: out.String(), stderr: errb.String()}
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		r.code = ee.ExitCode()
	case err != nil:
		t.Fatal(err)
	}
	return r
}

func writeTasks(t *testing.T, dir string, tasks []sqlgym.Task) string {
	t.Helper()
	path := filepath.Join(dir, "tasks.jsonl")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := sqlgym.WriteTasks(f, tasks); err != nil {
		t.Fatal(err)
	}
	return path
}

func evalArgs(tasks, url, out string, extra ...string) []string {
	return append([]string{"eval", "--tasks", tasks, "--base-url", url, "--model", "scripted",
		"--k", "4", "--temperature", "0.7", "--seed", fmt.Sprint(seed0), "--out", out}, extra...)
}

// rawLines reads samples.jsonl line by line, without rundir's
// deduplication, so a sample written twice shows.
func rawLines(t *testing.T, dir string) []rundir.Sample {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, rundir.SamplesFile))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []rundir.Sample
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var s rundir.Sample
		if err := json.Unmarshal(sc.Bytes(), &s); err != nil {
			t.Fatalf("line %d of samples.jsonl: %v", len(out)+1, err)
		}
		out = append(out, s)
	}
	return out
}

func countLines(path string) int {
	b, _ := os.ReadFile(path)
	return bytes.Count(b, []byte("\n"))
}

type sampleView struct {
	Completion, SQL, PromptHash string
	Outcome                     sqlgym.Outcome
}

func byKey(samples []rundir.Sample) map[rundir.Key]sampleView {
	out := map[rundir.Key]sampleView{}
	for _, s := range samples {
		out[s.Key()] = sampleView{s.Completion, s.SQL, s.PromptHash, s.Outcome}
	}
	return out
}

func TestKillNineThenResumeEqualsUninterruptedRun(t *testing.T) {
	bin := sqlgymBinary(t)
	tasks, replies := evaltest.ManyShopTasks(24)
	srv := evaltest.New(replies, seed0)
	defer srv.Close()
	srv.SetDelay(20 * time.Millisecond)
	dir, cache := t.TempDir(), t.TempDir()
	taskFile := writeTasks(t, dir, tasks)
	const total = 24 * 4

	killed := filepath.Join(dir, "runs", "killed")
	cmd := exec.Command(bin, evalArgs(taskFile, srv.BaseURL(), killed, "--concurrency", "4")...)
	cmd.Env = append(os.Environ(), asCLI, "SQLGYM_CACHE="+cache)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	samplesPath := filepath.Join(killed, rundir.SamplesFile)
	deadline := time.Now().Add(60 * time.Second)
	for countLines(samplesPath) < 10 {
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatal("no samples written within a minute")
		}
		time.Sleep(2 * time.Millisecond)
	}
	if err := cmd.Process.Kill(); err != nil { // SIGKILL: no cleanup runs
		t.Fatal(err)
	}
	cmd.Wait()
	atKill, _ := rundir.ReadSamples(killed)
	if len(atKill) >= total {
		t.Fatalf("the run finished (%d samples) before it was killed: the test proves nothing", len(atKill))
	}
	if _, err := os.Stat(filepath.Join(killed, rundir.SummaryFile)); err == nil {
		t.Fatal("a killed run has a summary.json")
	}
	// Whether or not this kill landed mid-write, leave the torn tail one
	// would: half a sample line without its newline.
	if b, _ := os.ReadFile(samplesPath); len(b) > 0 && b[len(b)-1] == '\n' {
		f, _ := os.OpenFile(samplesPath, os.O_APPEND|os.O_WRONLY, 0)
		f.WriteString(`{"task_id":"m023","sample":3,"prompt_hash":"`)
		f.Close()
	}

	resumed := runCLI(t, cache, evalArgs(taskFile, srv.BaseURL(), killed, "--concurrency", "4")...)
	if resumed.code != 0 || !strings.Contains(resumed.stdout, "continued") {
		t.Fatalf("resume: exit %d\n%s\n%s", resumed.code, resumed.stdout, resumed.stderr)
	}
	whole := filepath.Join(dir, "runs", "whole")
	if r := runCLI(t, cache, evalArgs(taskFile, srv.BaseURL(), whole, "--concurrency", "4")...); r.code != 0 {
		t.Fatalf("uninterrupted run: exit %d\n%s", r.code, r.stderr)
	}

	lines := rawLines(t, killed)
	seen := map[rundir.Key]bool{}
	for _, s := range lines {
		if seen[s.Key()] {
			t.Fatalf("sample %v written twice", s.Key())
		}
		seen[s.Key()] = true
	}
	if len(lines) != total {
		t.Fatalf("resumed run holds %d lines, want %d", len(lines), total)
	}
	a, _ := rundir.ReadSamples(killed)
	b, _ := rundir.ReadSamples(whole)
	ka, kb := byKey(a), byKey(b)
	if len(ka) != total || len(kb) != total {
		t.Fatalf("%d and %d samples, want %d", len(ka), len(kb), total)
	}
	for k, v := range kb {
		if ka[k] != v {
			t.Fatalf("sample %v differs:\nresumed       %+v\nuninterrupted %+v", k, ka[k], v)
		}
	}
	sa, _ := rundir.ReadSummary(killed)
	sb, _ := rundir.ReadSummary(whole)
	if sa.Metrics["pass@1"] != sb.Metrics["pass@1"] || sa.Metrics["pass^4"] != sb.Metrics["pass^4"] || sa.Missing != 0 {
		t.Fatalf("summaries differ: %+v vs %+v", sa, sb)
	}
	t.Logf("killed after %d of %d samples; resumed and matched the uninterrupted run", len(atKill), total)
}

func TestServerDownForOneTaskExitsThreeAndRerunFills(t *testing.T) {
	srv := evaltest.New(evaltest.ShopReplies(), seed0)
	defer srv.Close()
	down := evaltest.ShopTasks()[2].Question
	srv.SetDown(down, true)
	dir, cache := t.TempDir(), t.TempDir()
	taskFile := writeTasks(t, dir, evaltest.ShopTasks())
	out := filepath.Join(dir, "runs", "flaky")

	r := runCLI(t, cache, evalArgs(taskFile, srv.BaseURL(), out)...)
	// Exit 3: incomplete, run again (internal/cmd/cmdkit/exitcode.go).
	if r.code != 3 || !strings.Contains(r.stderr, "4 samples missing (model server failures): run the same command again to fill them") {
		t.Fatalf("exit %d\nstdout %s\nstderr %s", r.code, r.stdout, r.stderr)
	}
	if !strings.Contains(r.stderr, "503") {
		t.Fatalf("the message does not say what the server answered:\n%s", r.stderr)
	}
	s, err := rundir.ReadSummary(out)
	if err != nil || s.Missing != 4 || s.Tasks != 3 {
		t.Fatalf("summary.json %+v %v", s, err)
	}
	for _, sm := range rawLines(t, out) {
		if sm.TaskID == "t3" {
			t.Fatalf("a server failure was written as a sample: %+v", sm)
		}
	}

	srv.SetDown(down, false)
	r = runCLI(t, cache, append(evalArgs(taskFile, srv.BaseURL(), out), "--json")...)
	if r.code != 0 {
		t.Fatalf("rerun: exit %d\n%s", r.code, r.stderr)
	}
	var sum rundir.Summary
	if err := json.Unmarshal([]byte(r.stdout), &sum); err != nil {
		t.Fatalf("--json output %q: %v", r.stdout, err)
	}
	if sum.Missing != 0 || sum.Metrics["pass@1"].Value != 0.4375 || len(rawLines(t, out)) != 16 {
		t.Fatalf("after the rerun: %+v", sum)
	}
}

func TestRunFolderOfOtherSettingsRefusedWithHint(t *testing.T) {
	srv := evaltest.New(evaltest.ShopReplies(), seed0)
	defer srv.Close()
	dir, cache := t.TempDir(), t.TempDir()
	taskFile := writeTasks(t, dir, evaltest.ShopTasks()[:2])
	out := filepath.Join(dir, "runs", "a")
	if r := runCLI(t, cache, evalArgs(taskFile, srv.BaseURL(), out)...); r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	r := runCLI(t, cache, evalArgs(taskFile, srv.BaseURL(), out, "--temperature", "0.2", "--mode", "bird")...)
	if r.code != 1 || !strings.Contains(r.stderr, "--temperature (0.7 here, 0.2 now)") || !strings.Contains(r.stderr, "--mode (multiset here, bird now)") ||
		!strings.Contains(r.stderr, "hint: give a new --out folder") {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	// The ledger has the one finished run, nothing for the refused one.
	if n := countLines(filepath.Join(dir, "runs", "ledger.jsonl")); n != 1 {
		t.Fatalf("ledger has %d lines", n)
	}
}

func TestBaselinePolicyRunsOffline(t *testing.T) {
	dir, cache := t.TempDir(), t.TempDir()
	tasks := []sqlgym.Task{
		{ID: "tr1", DB: "shop", Question: "How many orders are there?", SQL: "SELECT count(*) FROM orders", Split: sqlgym.SplitTrain},
		{ID: "tr2", DB: "shop", Question: "What is the largest order total?", SQL: "SELECT max(total_amount) FROM orders", Split: sqlgym.SplitTrain},
		{ID: "h1", DB: "shop", Question: "How many orders are there in all?", SQL: "SELECT count(order_id) FROM orders", Split: sqlgym.SplitHoldout},
		{ID: "h2", DB: "shop", Question: "What is the largest total of an order?", SQL: "SELECT max(total_amount) FROM orders", Split: sqlgym.SplitHoldout},
	}
	taskFile := writeTasks(t, dir, tasks)
	out := filepath.Join(dir, "runs", "baseline")
	r := runCLI(t, cache, "eval", "--tasks", taskFile, "--split", "holdout", "--policy", "baseline", "--k", "2", "--temperature", "0", "--out", out, "--json")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	var sum rundir.Summary
	if err := json.Unmarshal([]byte(r.stdout), &sum); err != nil {
		t.Fatal(err)
	}
	if sum.Tasks != 2 || sum.Metrics["pass@1"].Value != 1 {
		t.Fatalf("baseline summary %+v", sum)
	}
	m, _ := rundir.ReadManifest(out)
	if m.Policy != "baseline" || m.Split != "holdout" || m.TaskCount != 2 {
		t.Fatalf("manifest %+v", m)
	}
	for _, s := range rawLines(t, out) {
		if s.TaskID != "h1" && s.TaskID != "h2" || !strings.Contains(s.Reasoning, "tr") {
			t.Fatalf("baseline sample %+v", s)
		}
	}
}
