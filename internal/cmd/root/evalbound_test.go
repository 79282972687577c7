package root

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sqlgym/sqlgym/internal/cmd/cmdkit"
)

// A --k far past any evaluation is refused before anything is allocated
// or written, and the refusal names --yes.
func TestEvalRefusesHugeKWithoutYes(t *testing.T) {
	out := filepath.Join(t.TempDir(), "run")
	code, _, errOut := run(t, "eval", "--tasks", shopTaskFile(t), "--policy", "baseline", "--k", "100000", "--out", out)
	if code != cmdkit.ExitError || !strings.Contains(errOut, "400000 samples, past the sanity bound") || !strings.Contains(errOut, "--yes") {
		t.Fatalf("exit %d, stderr:\n%s", code, errOut)
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("a refused run made its folder")
	}
}

// With --yes a huge k starts at once, holds no memory per sample and
// stops within a second of SIGINT with exit 130.
func TestEvalHugeKWithYesHonoursSIGINT(t *testing.T) {
	out := filepath.Join(t.TempDir(), "run")
	done := make(chan int, 1)
	var errOut bytes.Buffer
	go func() {
		done <- Main([]string{"eval", "--tasks", shopTaskFile(t), "--policy", "baseline", "--k", "5000000", "--yes",
			"--concurrency", "1", "--out", out}, cmdkit.IO{In: strings.NewReader(""), Out: &bytes.Buffer{}, ErrOut: &errOut})
	}()
	// Wait for the first samples: the signal handler is installed then.
	deadline := time.Now().Add(60 * time.Second)
	for {
		if fi, err := os.Stat(filepath.Join(out, "samples.jsonl")); err == nil && fi.Size() > 0 {
			break
		}
		select {
		case code := <-done:
			t.Fatalf("eval ended before drawing: exit %d\n%s", code, errOut.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatal("no sample written within 60 s")
		}
		time.Sleep(20 * time.Millisecond)
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	if ms.HeapAlloc > 512<<20 {
		t.Errorf("heap %d MB while drawing: memory grows with k", ms.HeapAlloc>>20)
	}
	if err := syscall.Kill(syscall.Getpid(), syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	select {
	case code := <-done:
		if code != cmdkit.ExitInterrupted {
			t.Fatalf("exit %d, stderr:\n%s", code, errOut.String())
		}
	case <-time.After(time.Second):
		t.Fatal("eval did not stop within a second of SIGINT")
	}
}
