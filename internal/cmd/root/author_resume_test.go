package root

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/internal/jsonl"

	"github.com/sqlgym/sqlgym/internal/cmd/cmdkit"
)

// A second author run on the same --out is refused while the first holds
// it, naming the holder and the fix; two runs never both append.
func TestAuthorResumeRefusedWhileAnotherRunWrites(t *testing.T) {
	t.Setenv("SQLGYM_CACHE", t.TempDir())
	out := filepath.Join(t.TempDir(), "tasks.jsonl")
	if code, _, errOut := run(t, "author", "--db", "shop", "--n", "5", "--out", out); code != cmdkit.ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	before, _ := os.ReadFile(out)
	held, err := jsonl.Acquire(jsonl.LockPath(out), false)
	if err != nil {
		t.Fatal(err)
	}
	code, _, errOut := run(t, "author", "--db", "shop", "--n", "10", "--out", out, "--resume")
	held.Release()
	if code != cmdkit.ExitLocked || !strings.Contains(errOut, "another sqlgym author") ||
		!strings.Contains(errOut, fmt.Sprintf("process %d", os.Getpid())) || !strings.Contains(errOut, "choose another --out") {
		t.Fatalf("second run: exit %d, stderr %q", code, errOut)
	}
	if after, _ := os.ReadFile(out); string(after) != string(before) {
		t.Fatal("the refused run changed the file")
	}
	if code, _, errOut := run(t, "author", "--db", "shop", "--n", "10", "--out", out, "--resume"); code != cmdkit.ExitOK {
		t.Fatalf("after the holder left: exit %d: %s", code, errOut)
	}
}

// A crash mid-write leaves a torn last line: --resume cuts it and goes on,
// and the file reads cleanly afterwards.
func TestAuthorResumeRepairsATornTail(t *testing.T) {
	t.Setenv("SQLGYM_CACHE", t.TempDir())
	out := filepath.Join(t.TempDir(), "tasks.jsonl")
	if code, _, errOut := run(t, "author", "--db", "shop", "--n", "5", "--out", out); code != cmdkit.ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	f, _ := os.OpenFile(out, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"id":"shop_filter_dead","db":"sh`)
	f.Close()
	if _, err := sqlgym.ReadTasks(out); err == nil {
		t.Fatal("a torn task file read cleanly before the repair")
	}
	if code, _, errOut := run(t, "author", "--db", "shop", "--n", "8", "--out", out, "--resume"); code != cmdkit.ExitOK {
		t.Fatalf("resume: exit %d: %s", code, errOut)
	}
	tasks, err := sqlgym.ReadTasks(out)
	if err != nil || len(tasks) != 8 {
		t.Fatalf("after resume: %d tasks, %v", len(tasks), err)
	}
}
