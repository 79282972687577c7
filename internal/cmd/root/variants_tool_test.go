package root

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/engine/sqlite"
	"github.com/sqlgym/sqlgym/internal/jsonl"
	"github.com/sqlgym/sqlgym/variants"

	"github.com/sqlgym/sqlgym/internal/cmd/cmdkit"
)

// asCLI in a process test's environment makes this test binary the sqlgym
// program (TestMain).
const asCLI = "SQLGYM_CLI_TEST_AS_CLI"

// toyDatabases writes n toy SQLite databases toy1..toyN and a task file
// with one task on each; it returns the task file and the --db flags.
func toyDatabases(t *testing.T, n int) (string, []string) {
	t.Helper()
	dir := t.TempDir()
	var lines strings.Builder
	var flags []string
	for i := 1; i <= n; i++ {
		name := fmt.Sprintf("toy%d", i)
		path := filepath.Join(dir, name+".sqlite")
		if err := sqlite.Create(context.Background(), path, variantsToyStmts()); err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&lines, `{"id":"big%d","db":"%s","question":"How many orders cost more than 40?","sql":"SELECT COUNT(*) FROM orders WHERE amount > 40"}`+"\n", i, name)
		flags = append(flags, "--db", name+"=sqlite:"+path)
	}
	return writeFile(t, "tasks.jsonl", lines.String()), flags
}

func variantsArgs(tasks string, flags []string, out string, extra ...string) []string {
	args := append([]string{"variants", "--tasks", tasks}, flags...)
	args = append(args, "--out", out, "--max-variants", "2", "--candidates", "3")
	return append(args, extra...)
}

// copyTree copies the folder from to to (which must not exist).
func copyTree(t *testing.T, from, to string) {
	t.Helper()
	err := filepath.WalkDir(from, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		dst := filepath.Join(to, rel)
		if d.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(dst, b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

const nearMiss = `{"task_id":"big","sql":"SELECT COUNT(*) FROM orders WHERE amount >= 40"}` + "\n"

// The output folder names its files relative to itself: copied to
// another place (the original removed), verify --variants still judges on
// its variants; a variant file missing from a copy is named as such,
// before any work, and is not reported as a database that cannot be
// reached.
func TestVariantsFolderMovesAndAMissingFileIsNamed(t *testing.T) {
	t.Setenv("SQLGYM_CACHE", t.TempDir())
	db := variantsToy(t)
	tasks := writeFile(t, "tasks.jsonl",
		`{"id":"big","db":"toy","question":"How many orders cost more than 40?","sql":"SELECT COUNT(*) FROM orders WHERE amount > 40"}`+"\n")
	out := filepath.Join(t.TempDir(), "v")
	if code, _, errOut := run(t, variantsArgs(tasks, []string{"--db", "toy=sqlite:" + db}, out)...); code != cmdkit.ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	raw, err := os.ReadFile(filepath.Join(out, "tasks.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(raw), `"sqlite:toy/toy_v1.sqlite"`) || strings.Contains(string(raw), out) {
		t.Errorf("tasks.jsonl names its variants by absolute paths, want relative to --out:\n%s", raw)
	}
	moved := filepath.Join(t.TempDir(), "elsewhere", "v")
	copyTree(t, out, moved)
	if err := os.RemoveAll(out); err != nil {
		t.Fatal(err)
	}
	preds := writeFile(t, "preds.jsonl", nearMiss)
	for _, dbFlag := range [][]string{{"--db", "toy=sqlite:" + db}, {"--db-dir", moved}} {
		args := append([]string{"verify", "--tasks", filepath.Join(moved, "tasks.jsonl"), "--variants", "--predictions", preds}, dbFlag...)
		code, stdout, errOut := run(t, args...)
		if !strings.Contains(stdout, `"outcome":"wrong"`) {
			t.Errorf("verify %v on the moved folder: exit %d, want the near miss wrong:\n%s%s", dbFlag, code, stdout, errOut)
		}
	}

	if err := os.Remove(filepath.Join(moved, "toy", "toy_v1.sqlite")); err != nil {
		t.Fatal(err)
	}
	for _, cmd := range [][]string{
		{"verify", "--tasks", filepath.Join(moved, "tasks.jsonl"), "--db", "toy=sqlite:" + db, "--variants", "--predictions", preds},
		{"screen", "--tasks", filepath.Join(moved, "tasks.jsonl"), "--db", "toy=sqlite:" + db, "--variants"},
	} {
		code, stdout, errOut := run(t, cmd...)
		if code != cmdkit.ExitError || !strings.Contains(errOut, "toy_v1.sqlite is missing") || !strings.Contains(errOut, "copy or move the variants folder whole") {
			t.Errorf("%s with a variant file missing: exit %d, stderr %q; want exit %d naming the missing file with a hint", cmd[0], code, errOut, cmdkit.ExitError)
		}
		for _, bad := range []string{"cannot be reached", "unavailable", "infra"} {
			if strings.Contains(errOut+stdout, bad) {
				t.Errorf("%s reports a missing file as %q:\n%s%s", cmd[0], bad, stdout, errOut)
			}
		}
	}
}

// A variant file changed after the run is noticed by the next run, which
// makes that database's variants again instead of resuming them; the
// manifest digests every variant file.
func TestVariantsChangedVariantIsMadeAgain(t *testing.T) {
	t.Setenv("SQLGYM_CACHE", t.TempDir())
	tasks, flags := toyDatabases(t, 1)
	out := filepath.Join(t.TempDir(), "v")
	args := variantsArgs(tasks, flags, out)
	if code, _, errOut := run(t, args...); code != cmdkit.ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	v1 := filepath.Join(out, "toy1", "toy1_v1.sqlite")
	want, err := sqlgym.FileDigest(v1)
	if err != nil {
		t.Fatal(err)
	}
	manifest, err := os.ReadFile(filepath.Join(out, "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(manifest), want) {
		t.Fatalf("manifest.json does not record toy1_v1.sqlite's digest %s", want)
	}
	if err := os.Remove(v1); err != nil {
		t.Fatal(err)
	}
	if err := sqlite.Create(context.Background(), v1, variantsToyStmts()[:1]); err != nil { // the table, emptied
		t.Fatal(err)
	}
	code, _, errOut := run(t, args...)
	if code != cmdkit.ExitOK || !strings.Contains(errOut, "toy1_v1.sqlite changed since it was made: made again") || strings.Contains(errOut, "resumed") {
		t.Fatalf("run after a variant changed: exit %d, stderr:\n%s", code, errOut)
	}
	if got, err := sqlgym.FileDigest(v1); err != nil || got != want {
		t.Errorf("the variant made again has digest %s (%v), want %s as before", got, err, want)
	}
}

// --shard I/N: the shards vary disjoint sets of databases that cover
// them all; their folders, gathered into one, merge by running the same
// command without --shard, which resumes every database and writes the
// task file an unsharded run writes, byte for byte.
func TestVariantsShardsPartitionAndMerge(t *testing.T) {
	t.Setenv("SQLGYM_CACHE", t.TempDir())
	tasks, flags := toyDatabases(t, 3)
	whole := filepath.Join(t.TempDir(), "whole")
	if code, _, errOut := run(t, variantsArgs(tasks, flags, whole)...); code != cmdkit.ExitOK {
		t.Fatalf("unsharded: exit %d: %s", code, errOut)
	}
	merged := filepath.Join(t.TempDir(), "merged")
	seen := map[string]int{}
	for i := range 2 {
		out := filepath.Join(t.TempDir(), fmt.Sprintf("shard%d", i))
		code, stdout, errOut := run(t, variantsArgs(tasks, flags, out, "--shard", fmt.Sprintf("%d/2", i))...)
		if code != cmdkit.ExitOK || !strings.Contains(stdout, "without --shard") {
			t.Fatalf("shard %d/2: exit %d: %s%s", i, code, stdout, errOut)
		}
		if _, err := os.Stat(filepath.Join(out, "tasks.jsonl")); err == nil {
			t.Errorf("shard %d/2 wrote tasks.jsonl: shards share a folder, only the merge writes it", i)
		}
		ents, err := os.ReadDir(out)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range ents {
			if e.IsDir() {
				seen[e.Name()]++
				if _, err := os.Stat(filepath.Join(out, e.Name(), variants.DoneFile)); err != nil {
					t.Errorf("shard %d/2: %s not finished: %v", i, e.Name(), err)
				}
			}
		}
		copyTree(t, out, merged)
	}
	for _, name := range []string{"toy1", "toy2", "toy3"} {
		if seen[name] != 1 {
			t.Errorf("%s made by %d shards, want exactly one", name, seen[name])
		}
	}
	if len(seen) != 3 {
		t.Errorf("shards made %v, want toy1..toy3", seen)
	}
	code, _, errOut := run(t, variantsArgs(tasks, flags, merged)...)
	if code != cmdkit.ExitOK || strings.Count(errOut, "resumed") != 3 || strings.Contains(errOut, "started") {
		t.Fatalf("merge: exit %d, want every database resumed, stderr:\n%s", code, errOut)
	}
	a, errA := os.ReadFile(filepath.Join(whole, "tasks.jsonl"))
	b, errB := os.ReadFile(filepath.Join(merged, "tasks.jsonl"))
	if errA != nil || errB != nil || !bytes.Equal(a, b) {
		t.Errorf("merged tasks.jsonl differs from the unsharded run's (%v, %v):\n%s\n---\n%s", errA, errB, a, b)
	}
}

// Ctrl-C in the middle of a run leaves a folder that the same command
// run again continues: the databases finished before the interrupt are
// resumed, one left half made is made again without --replace, and the
// result is the uninterrupted run's.
func TestVariantsInterruptedRunResumes(t *testing.T) {
	t.Setenv("SQLGYM_CACHE", t.TempDir())
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	tasks, flags := toyDatabases(t, 3)
	whole := filepath.Join(t.TempDir(), "whole")
	if code, _, errOut := run(t, variantsArgs(tasks, flags, whole)...); code != cmdkit.ExitOK {
		t.Fatalf("uninterrupted: exit %d: %s", code, errOut)
	}
	out := filepath.Join(t.TempDir(), "v")
	cmd := exec.Command(exe, variantsArgs(tasks, flags, out)...)
	cmd.Env = append(os.Environ(), asCLI+"=1")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var seen strings.Builder
	sc := bufio.NewScanner(stderr)
	interrupted := false
	for sc.Scan() {
		seen.WriteString(sc.Text() + "\n")
		// The first database is done and the second under way: Ctrl-C.
		if !interrupted && strings.Contains(sc.Text(), "toy2 (1 tasks): started") {
			if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
				t.Fatal(err)
			}
			interrupted = true
		}
	}
	err = cmd.Wait()
	if !interrupted {
		t.Fatalf("the run ended before toy2 started (%v):\n%s", err, seen.String())
	}
	code := cmd.ProcessState.ExitCode()
	if _, statErr := os.Stat(filepath.Join(out, "toy3", variants.DoneFile)); code == cmdkit.ExitOK && statErr == nil {
		t.Skipf("the run finished every database before SIGINT arrived:\n%s", seen.String())
	}
	if code != cmdkit.ExitInterrupted {
		t.Fatalf("interrupted run: exit %d, want %d:\n%s", code, cmdkit.ExitInterrupted, seen.String())
	}
	if _, err := os.Stat(filepath.Join(out, "tasks.jsonl")); err == nil {
		t.Error("an interrupted run wrote tasks.jsonl")
	}
	half := false
	if _, err := os.Stat(filepath.Join(out, "toy2")); err == nil {
		if _, err := os.Stat(filepath.Join(out, "toy2", variants.DoneFile)); err != nil {
			half = true
		}
	}
	start := time.Now()
	code, _, errOut := run(t, variantsArgs(tasks, flags, out)...)
	if code != cmdkit.ExitOK || !strings.Contains(errOut, "toy1 (1 tasks): resumed") {
		t.Fatalf("run after Ctrl-C: exit %d, want toy1 resumed (%s):\n%s", code, time.Since(start), errOut)
	}
	if half && !strings.Contains(errOut, "toy2: its folder was left unfinished by a run that stopped: made again") {
		t.Errorf("toy2's half-made folder was not made again:\n%s", errOut)
	}
	a, errA := os.ReadFile(filepath.Join(whole, "tasks.jsonl"))
	b, errB := os.ReadFile(filepath.Join(out, "tasks.jsonl"))
	if errA != nil || errB != nil || !bytes.Equal(a, b) {
		t.Errorf("resumed tasks.jsonl differs from the uninterrupted run's (%v, %v):\n%s\n---\n%s", errA, errB, a, b)
	}
}

// Two runs on one folder do not write the same database: the second is
// refused with the lock's exit code while the first holds it.
func TestVariantsRefusesAFolderAnotherRunHolds(t *testing.T) {
	t.Setenv("SQLGYM_CACHE", t.TempDir())
	tasks, flags := toyDatabases(t, 1)
	out := filepath.Join(t.TempDir(), "v")
	if err := os.MkdirAll(out, 0o755); err != nil {
		t.Fatal(err)
	}
	l, err := jsonl.Acquire(jsonl.LockPath(filepath.Join(out, "toy1")), false)
	if err != nil {
		t.Fatal(err)
	}
	code, _, errOut := run(t, variantsArgs(tasks, flags, out)...)
	if code != cmdkit.ExitLocked || !strings.Contains(errOut, "wait for the other run to end") {
		t.Errorf("run on a held folder: exit %d, stderr %q; want %d", code, errOut, cmdkit.ExitLocked)
	}
	if _, err := os.Stat(filepath.Join(out, "toy1")); err == nil {
		t.Error("the refused run wrote toy1's folder")
	}
	if err := l.Release(); err != nil {
		t.Fatal(err)
	}
	if code, _, errOut := run(t, variantsArgs(tasks, flags, out)...); code != cmdkit.ExitOK {
		t.Errorf("once released: exit %d: %s", code, errOut)
	}
}
