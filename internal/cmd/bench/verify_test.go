package bench

import (
	"github.com/sqlgym/sqlgym/internal/cmd/cmdkit"

	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/benchdb"
	"github.com/sqlgym/sqlgym/internal/testenv"
)

// The command end to end on a small generated file: --out keeps it, a
// second run reuses it with --db under load. The burners are this test
// binary itself (burnEnv's init hook), so the check below is of real
// child processes.
func TestBenchVerifyLoad(t *testing.T) {
	db := filepath.Join(t.TempDir(), "bench.sqlite")
	code, out, errOut := run(t, "verify", "--size", "512KB", "--answers", "32", "--repeat", "1", "--c-floor=false", "--out", db)
	if code != cmdkit.ExitOK {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	for _, want := range []string{"generated in", "32 answers to 2 tasks", "verifier (golds cached, ", "floor: sandboxed engine"} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
	if _, err := os.Stat(db); err != nil {
		t.Fatalf("--out did not keep the file: %v", err)
	}

	code, out, errOut = run(t, "verify", "--db", db, "--answers", "32", "--repeat", "1", "--c-floor=false", "--load", "1", "--json")
	if code != cmdkit.ExitOK {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	var rep benchVerifyReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("--json is not JSON: %v\n%s", err, out)
	}
	if rep.Generated || rep.Answers != 32 || rep.Tasks != 2 || rep.Distinct == 0 || rep.Idle.Outcomes["correct"] == 0 || rep.Idle.Outcomes["wrong"] == 0 {
		t.Errorf("report %+v", rep)
	}
	// The floor runs what the warm verifier runs, no more, no less.
	if rep.FloorStatements == 0 || rep.Statements != float64(rep.FloorStatements) {
		t.Errorf("the verifier ran %.1f statements per warm batch, the floor %d", rep.Statements, rep.FloorStatements)
	}
	if len(rep.Floors) == 0 || rep.Verifier.WallS <= 0 {
		t.Errorf("no timings: verifier %+v, floors %+v", rep.Verifier, rep.Floors)
	}
	for _, f := range rep.Floors {
		if f.Err != "" || f.WallS <= 0 || f.WallRatio <= 0 {
			t.Errorf("floor %+v", f)
		}
	}
	b := rep.Busy
	if b == nil {
		t.Fatalf("--load 1: no busy report:\n%s", out)
	}
	if b.Burners != runtime.NumCPU() || len(b.BurnerPIDs) != b.Burners || b.Differences == nil || len(b.Differences) != 0 || b.Loaded.NullRewards != 0 || b.EarlyExits != 0 {
		t.Errorf("busy report %+v", b)
	}
	if !strings.Contains(out, `"differences": []`) {
		t.Errorf("differences is not an empty list in the JSON:\n%s", out)
	}
	// Every burner is gone: killed and reaped, so its pid names no process.
	for _, pid := range b.BurnerPIDs {
		if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
			t.Errorf("burner %d still exists after the command returned (kill 0: %v)", pid, err)
		}
	}
}

// The plain C floor: compiled with gcc from the amalgamation the binary
// links (about 45 s of CPU the first time, then cached), run on the
// batch, and timed beside the others.
func TestBenchVerifyCFloor(t *testing.T) {
	testenv.Slow(t, "compiles the SQLite amalgamation with gcc on first use (about 45 s of CPU)")
	code, out, errOut := run(t, "verify", "--size", "512KB", "--answers", "32", "--repeat", "1", "--json")
	if code != cmdkit.ExitOK {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	var rep benchVerifyReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("--json is not JSON: %v\n%s", err, out)
	}
	found := false
	for _, f := range rep.Floors {
		if strings.HasPrefix(f.Name, "plain C program") {
			found = true
			if f.Err != "" || f.CPUS <= 0 || f.CPURatio <= 0 {
				t.Errorf("C floor %+v", f)
			}
		}
	}
	if !found {
		t.Errorf("no C floor in %+v", rep.Floors)
	}
}

// --spider batches on Spider's world_1 as verify's BenchmarkGRPOBatchSpider
// does: 61 statements for the warm verifier and the floors.
func TestBenchVerifySpider(t *testing.T) {
	data := testenv.SharedData(t)
	code, out, errOut := run(t, "verify", "--spider", filepath.Join(data, "spider_dev"), "--repeat", "1", "--c-floor=false", "--json")
	if code != cmdkit.ExitOK {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	var rep benchVerifyReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("--json is not JSON: %v\n%s", err, out)
	}
	if rep.Tasks != 32 || rep.Answers != 512 || !strings.HasSuffix(rep.DB, "world_1.sqlite") || rep.FloorStatements != 61 || rep.Statements != 61 {
		t.Errorf("report %+v", rep)
	}
	if rep.Idle.Outcomes["correct"] == 0 || rep.Idle.Outcomes["wrong"] == 0 || rep.Idle.NullRewards != 0 {
		t.Errorf("verdicts %+v", rep.Idle)
	}
	code, _, errOut = run(t, "verify", "--spider", data, "--repeat", "1")
	if code != cmdkit.ExitError || !strings.Contains(errOut, "hint: --spider takes Spider's dev folder") {
		t.Errorf("--spider on the wrong folder: exit %d\n%s", code, errOut)
	}
}

func TestBenchVerifyRefuses(t *testing.T) {
	notBench := writeFile(t, "tasks.jsonl", "{}\n")
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--size", "10XB"}, cmdkit.ExitUsage, "--size"},
		{[]string{"--size", "2GB"}, cmdkit.ExitUsage, "between 256KB and 1GB"},
		{[]string{"--answers", "100"}, cmdkit.ExitUsage, "multiple of 16"},
		{[]string{"--repeat", "0"}, cmdkit.ExitUsage, "--repeat"},
		{[]string{"--db", "a.sqlite", "--out", "b.sqlite"}, cmdkit.ExitUsage, "not both"},
		{[]string{"--spider", "x", "--db", "a.sqlite"}, cmdkit.ExitUsage, "give no --db"},
		{[]string{"--mode", "nope"}, cmdkit.ExitUsage, "--mode"},
		{[]string{"--db", filepath.Join(t.TempDir(), "missing.sqlite")}, cmdkit.ExitError, "hint: write one with"},
		{[]string{"--db", notBench}, cmdkit.ExitError, "hint: --db takes a file written by"},
	} {
		code, _, errOut := run(t, append([]string{"verify"}, c.args...)...)
		if code != c.code || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d, want %d with %q:\n%s", c.args, code, c.code, c.want, errOut)
		}
	}
}

func TestBenchVerifyBurnIsHidden(t *testing.T) {
	code, out, _ := run(t, "--help")
	if code != cmdkit.ExitOK || strings.Contains(out, "burn") || !strings.Contains(out, "verify") {
		t.Errorf("bench --help: exit %d, lists burn or misses verify:\n%s", code, out)
	}
	if code, _, errOut := run(t, "burn", "--for", "50ms"); code != cmdkit.ExitOK {
		t.Errorf("bench burn --for 50ms: exit %d: %s", code, errOut)
	}
	if code, _, _ := run(t, "burn", "--for", "2h"); code != cmdkit.ExitUsage {
		t.Errorf("bench burn --for 2h: exit %d, want %d", code, cmdkit.ExitUsage)
	}
	code, out, _ = run(t, "verify", "--help")
	if code != cmdkit.ExitOK || !strings.Contains(out, "Examples:") {
		t.Errorf("bench verify --help: exit %d, no examples:\n%s", code, out)
	}
}

// A burner really spins (it is not, say, the test binary listing its
// tests), ends on its own after its time, and stop reaps it. Spinning is
// checked by state, not by rate: a burner told to spin for a minute is
// runnable (state R, running or waiting for a CPU) whenever the kernel is
// asked, however busy the machine, while a process that sleeps, even one
// waking every few milliseconds, is almost never caught runnable; stop
// then ends it. One told to spin for 400 ms ends on its own. The
// watchdogs catch a hang.
func TestBenchVerifyBurnersBurnThenEnd(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads the burner's CPU time from /proc (Linux)")
	}
	long, err := startBurners(context.Background(), 1, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	defer long.stop()
	pid := long.pids()[0]
	// Past its start (loading the binary may wait on the disk): 100 ms
	// of CPU time spent, however long a busy machine takes to give it.
	for cpu := time.Duration(0); cpu < 100*time.Millisecond; {
		select {
		case <-long.done[0]:
			t.Fatalf("a burner asked for a minute ended after %s of CPU: %v", cpu, long.cmds[0].ProcessState)
		case <-time.After(10 * time.Millisecond):
		}
		if cpu, err = procCPU(pid); err != nil {
			t.Fatal(err)
		}
	}
	const samples = 50
	runnable := 0
	for range samples {
		r, err := procRunnable(pid)
		if err != nil {
			t.Fatal(err)
		}
		if r {
			runnable++
		}
		time.Sleep(5 * time.Millisecond)
	}
	if runnable < samples*9/10 {
		t.Errorf("the burner was runnable in %d of %d looks: it does not spin", runnable, samples)
	}
	if err := long.stop(); err != nil {
		t.Error(err)
	}
	if long.earlyExits() != 0 {
		t.Errorf("the stopped burner counts as an early exit")
	}

	short, err := startBurners(context.Background(), 1, 400*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-short.done[0]:
	case <-time.After(2 * time.Minute):
		short.stop()
		t.Fatal("hung: a burner asked for 400ms still runs after 2 minutes")
	}
	if st := short.cmds[0].ProcessState; !st.Success() || short.earlyExits() != 1 {
		t.Errorf("burner ended with %v, %d early exits", st, short.earlyExits())
	}
	if err := short.stop(); err != nil {
		t.Error(err)
	}
}

// procRunnable reports whether a thread of the process is running or
// waiting for a CPU (state R in /proc/PID/task/TID/stat).
func procRunnable(pid int) (bool, error) {
	tasks, err := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
	if err != nil {
		return false, fmt.Errorf("list the burner's threads: %w", err)
	}
	for _, task := range tasks {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%s/stat", pid, task.Name()))
		if err != nil {
			continue // the thread ended meanwhile
		}
		if f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:])); len(f) > 0 && f[0] == "R" {
			return true, nil
		}
	}
	return false, nil
}

// procCPU is a running process's user and system CPU time from
// /proc/PID/stat (fields 14 and 15, in clock ticks of 1/100 s, Linux's
// USER_HZ). The burner test runs where the burners do (Linux); elsewhere
// it skips.
func procCPU(pid int) (time.Duration, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, fmt.Errorf("read the burner's CPU time: %w", err)
	}
	// The command name (field 2) may hold spaces: count from its ')'.
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
	if len(f) < 13 {
		return 0, fmt.Errorf("/proc/%d/stat: %d fields after the name, want 13 or more", pid, len(f))
	}
	var ticks int64
	for _, v := range f[11:13] {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("/proc/%d/stat: %w", pid, err)
		}
		ticks += n
	}
	return time.Duration(ticks) * 10 * time.Millisecond, nil
}

// The sqlite3 floor runs through broken statements (the batch has some)
// but fails on a file it cannot read.
func TestBenchVerifyCLIFloor(t *testing.T) {
	db := filepath.Join(t.TempDir(), "bench.sqlite")
	if _, err := benchdb.Generate(context.Background(), db, benchdb.Config{Seed: 1, Size: benchdb.MinSize}); err != nil {
		t.Fatal(err)
	}
	testenv.Tool(t, "sqlite3")
	f, ok := newCLIFloor(db, 2)
	if !ok {
		t.Fatal("sqlite3 is on PATH but newCLIFloor found none")
	}
	qs := []string{"SELECT count(*) FROM orders", "SELECT * FROM no_such_table", "SELECT * FROM order_items;", "SELECT name FROM products ORDER BY price DESC LIMIT 3"}
	r, err := f.Run(context.Background(), qs)
	if err != nil || r.Wall <= 0 {
		t.Fatalf("floor on the benchmark database: %+v, %v", r, err)
	}
	bad, _ := newCLIFloor(writeFile(t, "not.sqlite", "not a database\n"), 2)
	if _, err := bad.Run(context.Background(), qs); err == nil || !strings.Contains(err.Error(), "did not run to the end") {
		t.Errorf("floor on a text file: %v, want an error", err)
	}
}

func TestBenchVerifyParseSize(t *testing.T) {
	for in, want := range map[string]int64{"10MB": 10 << 20, "100mb": 100 << 20, "1GB": 1 << 30, "512KB": 512 << 10, " 2.5 MB ": 5 << 19} {
		if got, err := parseSize(in); err != nil || got != want {
			t.Errorf("parseSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
}

// A changed verdict or a null reward, idle or loaded, fails the run, and
// the text report says so.
func TestBenchVerifyFailsOnDifferenceOrNull(t *testing.T) {
	zero := 0.0
	clean := func() *benchVerifyReport {
		return &benchVerifyReport{Busy: &busyReport{Differences: []verdictDiff{}}}
	}
	if err := benchVerdictError(clean()); err != nil {
		t.Errorf("clean report: %v", err)
	}
	diff := clean()
	diff.Busy.Differences = append(diff.Busy.Differences, verdictDiff{TaskID: "bench_13b", Sample: 10, IdleOutcome: sqlgym.OutcomeWrong, LoadedOutcome: sqlgym.OutcomeTimeout, LoadedReward: &zero})
	idleNull, loadedNull := clean(), clean()
	idleNull.Idle.NullRewards = 1
	loadedNull.Busy.Loaded.NullRewards = 2
	for name, rep := range map[string]*benchVerifyReport{"difference": diff, "idle null": idleNull, "loaded null": loadedNull} {
		var ue *sqlgym.UserError
		if err := benchVerdictError(rep); !errors.As(err, &ue) || ue.Hint == "" {
			t.Errorf("%s: %v, want a UserError with a hint", name, err)
		}
		var out strings.Builder
		printBenchVerify(&out, rep)
		if !strings.Contains(out.String(), "FAILED") {
			t.Errorf("%s: the report does not say FAILED:\n%s", name, out.String())
		}
	}
	var out strings.Builder
	printBenchVerify(&out, diff)
	if !strings.Contains(out.String(), "bench_13b #10: idle wrong, loaded timeout") {
		t.Errorf("the difference is not listed:\n%s", out.String())
	}
}
