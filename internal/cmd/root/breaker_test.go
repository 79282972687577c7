package root

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sqlgym/sqlgym/eval/evaltest"

	"github.com/sqlgym/sqlgym/internal/cmd/cmdkit"
)

// A model server (speaking the OpenAI wire protocol) closed mid-run stops
// eval with exit 3 and "run the same command again" within seconds, not
// after retrying every remaining sample for hours; the samples drawn
// before stay in the folder.
func TestEvalStopsWhenTheServerGoesAway(t *testing.T) {
	tasks, replies := evaltest.ManyShopTasks(200)
	srv := evaltest.New(replies, 0)
	defer srv.Close()
	srv.SetDelay(20 * time.Millisecond)
	var b bytes.Buffer
	for _, tk := range tasks {
		line, err := json.Marshal(tk)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(append(line, '\n'))
	}
	tf := writeFile(t, "tasks.jsonl", b.String())
	out := filepath.Join(t.TempDir(), "run")
	done := make(chan int, 1)
	var errOut bytes.Buffer
	go func() {
		done <- Main([]string{"eval", "--tasks", tf, "--base-url", srv.BaseURL(), "--model", "m", "--k", "2",
			"--concurrency", "4", "--out", out}, cmdkit.IO{In: strings.NewReader(""), Out: &bytes.Buffer{}, ErrOut: &errOut})
	}()
	for srv.Calls.Load() < 10 {
		select {
		case code := <-done:
			t.Fatalf("eval ended before the server went away: exit %d\n%s", code, errOut.String())
		case <-time.After(10 * time.Millisecond):
		}
	}
	srv.CloseClientConnections()
	srv.Close()
	start := time.Now()
	select {
	case code := <-done:
		if code != cmdkit.ExitIncomplete || !strings.Contains(errOut.String(), "the model server went away; run the same command again") {
			t.Fatalf("exit %d, stderr:\n%s", code, errOut.String())
		}
		t.Logf("stopped %v after the server went away", time.Since(start).Round(time.Millisecond))
	case <-time.After(45 * time.Second):
		t.Fatal("eval still retrying 45 s after the server went away")
	}
	if fi, err := os.Stat(filepath.Join(out, "samples.jsonl")); err != nil || fi.Size() == 0 {
		t.Errorf("the samples drawn before were not kept: %v", err)
	}
}
