package duckdb

import (
	"os/exec"
	"testing"
)

// classifyDeath reads real processes' ends: the Go runtime's fatal
// out-of-memory error is the statement's cap, a kill from outside is the
// infrastructure's, anything else a crash worth one retry.
func TestClassifyDeath(t *testing.T) {
	for _, c := range []struct {
		script string
		want   deathKind
	}{
		{`echo "fatal error: runtime: out of memory" >&2; echo "goroutine 1 [running]:" >&2; exit 2`, deathOOM},
		{`echo "terminate called after throwing an instance of 'std::bad_alloc'" >&2; kill -ABRT $$`, deathOOM},
		{`kill -KILL $$`, deathExternal},
		{`kill -TERM $$`, deathExternal},
		{`kill -SEGV $$`, deathCrash},
		{`echo "fatal error: unexpected signal during runtime execution" >&2; exit 2`, deathCrash},
		{`exit 0`, deathCrash},
	} {
		cmd := exec.Command("sh", "-c", c.script)
		w := &worker{cmd: cmd, stderr: &tailBuffer{max: 2048}, exited: make(chan struct{})}
		cmd.Stderr = w.stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		go func() {
			w.waitErr = cmd.Wait()
			close(w.exited)
		}()
		if got, desc := w.classifyDeath(); got != c.want {
			t.Errorf("%s: got %s (%s), want %s", c.script, got, desc, c.want)
		}
	}
}

// The head of a worker's stderr (the Go runtime's "fatal error" line)
// survives pages of goroutine traces after it.
func TestTailBufferKeepsHead(t *testing.T) {
	b := &tailBuffer{max: 64}
	b.Write([]byte("fatal error: runtime: out of memory\n"))
	for range 100 {
		b.Write([]byte("goroutine trace line\n"))
	}
	b.Write([]byte("last words"))
	s := b.String()
	if len(s) > 80 || s[:12] != "fatal error:" || s[len(s)-10:] != "last words" {
		t.Errorf("kept %q", s)
	}
}
