package root

import (
	"bytes"
	"context"
	"encoding/json"
	goio "io"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/screen"

	"github.com/sqlgym/sqlgym/internal/cmd/cmdkit"
	datacmd "github.com/sqlgym/sqlgym/internal/cmd/data"
	servecmd "github.com/sqlgym/sqlgym/internal/cmd/serve"
)

// weakShopTasks writes nTrain train shop tasks, every third marked weak
// as 'sqlgym screen' marks it; it returns the file and the weak count.
func weakShopTasks(t *testing.T, nTrain int) (string, int) {
	t.Helper()
	tasks, err := sqlgym.ReadTasks(shopTasksN(t, nTrain, 0))
	if err != nil {
		t.Fatal(err)
	}
	weak := 0
	for i := range tasks {
		if i%3 == 0 {
			if tasks[i].Extra == nil {
				tasks[i].Extra = map[string]json.RawMessage{}
			}
			tasks[i].Extra[screen.FieldWeak] = json.RawMessage("true")
		}
		if screen.IsWeak(tasks[i]) { // the built-in set carries its own screen's marks
			weak++
		}
	}
	var b strings.Builder
	if err := sqlgym.WriteTasks(&b, tasks); err != nil {
		t.Fatal(err)
	}
	return writeFile(t, "weak.jsonl", b.String()), weak
}

// Weak tasks going into training are counted and warned about (issue 26:
// export, serve and curate used them silently).
func TestExportAndCurateWarnOfWeakTasks(t *testing.T) {
	t.Setenv("SQLGYM_CACHE", t.TempDir())
	tf, weak := weakShopTasks(t, 120)
	out := filepath.Join(t.TempDir(), "train.jsonl")
	code, stdout, stderr := run(t, "export", "--tasks", tf, "--format", "trl", "--out", out, "--json")
	var res datacmd.ExportResult
	if code != cmdkit.ExitOK || json.Unmarshal([]byte(stdout), &res) != nil {
		t.Fatalf("export: exit %d\n%s%s", code, stdout, stderr)
	}
	want := "warning: export uses " + itoa(weak) + " weak tasks of 120"
	if res.Weak != weak || !strings.Contains(stderr, want) {
		t.Errorf("export: weak %d, stderr %q; want %d and %q", res.Weak, stderr, weak, want)
	}

	runDir := filepath.Join(t.TempDir(), "base")
	if code, _, errOut := run(t, "eval", "--tasks", tf, "--split", "all", "--policy", "baseline", "--k", "2", "--seed", "1", "--out", runDir); code != cmdkit.ExitOK {
		t.Fatalf("eval: %d %s", code, errOut)
	}
	code, stdout, stderr = run(t, "curate", "sft", "--run", runDir, "--out", filepath.Join(t.TempDir(), "sft.jsonl"), "--json")
	var m struct {
		Weak  int `json:"weak"`
		Tasks int `json:"tasks"`
	}
	if code != cmdkit.ExitOK || json.Unmarshal([]byte(stdout), &m) != nil {
		t.Fatalf("curate: exit %d\n%s", code, stderr)
	}
	if m.Weak == 0 || !strings.Contains(stderr, "warning: curate sft uses "+itoa(m.Weak)+" weak tasks of "+itoa(m.Tasks)) {
		t.Errorf("curate: weak %d of %d, stderr %q", m.Weak, m.Tasks, stderr)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

// serve counts the weak tasks it serves and warns before it listens.
func TestServeWarnsOfWeakTasks(t *testing.T) {
	t.Setenv("SQLGYM_CACHE", t.TempDir())
	tf, weak := weakShopTasks(t, 30)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pr, pw := goio.Pipe()
	var errOut syncBuffer
	done := make(chan error, 1)
	go func() {
		root := NewRoot(cmdkit.IO{In: strings.NewReader(""), Out: pw, ErrOut: &errOut})
		root.SetArgs([]string{"serve", "--tasks", tf, "--addr", "127.0.0.1:0", "--json"})
		done <- root.ExecuteContext(ctx)
		pw.Close()
	}()
	var info servecmd.ServeInfo
	if err := json.NewDecoder(pr).Decode(&info); err != nil {
		t.Fatalf("serve --json: %v\n%s", err, errOut.String())
	}
	cancel()
	go goio.Copy(goio.Discard, pr)
	<-done
	if info.Weak != weak || !strings.Contains(errOut.String(), "warning: serve uses "+itoa(weak)+" weak tasks of 30") {
		t.Errorf("serve: weak %d (want %d), stderr %q", info.Weak, weak, errOut.String())
	}
}

// syncBuffer is a bytes.Buffer safe for a writer and a reader goroutine.
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
