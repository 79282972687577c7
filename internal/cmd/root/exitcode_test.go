package root

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/sqlgym/sqlgym/eval/evaltest"

	"github.com/sqlgym/sqlgym/internal/cmd/cmdkit"
)

// Only errors in the command line itself exit 2; each is one cobra or a
// command refuses before doing anything.
func TestExitTwoOnlyForTheCommandLine(t *testing.T) {
	for _, args := range [][]string{
		{"no-such-command"},
		{"verify", "--no-such-flag"},
		{"verify", "--tasks", "t.jsonl"}, // a required flag left out
		{"version", "extra"},             // an argument too many
		{"report"},                       // an argument too few
		{"verify", "--tasks", "t", "--predictions", "p", "--mode", "fuzzy"}, // a flag's value
		{"eval", "--tasks", "t", "--out", "o", "--k", "x"},                  // a value cobra cannot parse
	} {
		code, _, errOut := run(t, args...)
		if code != cmdkit.ExitUsage || !strings.Contains(errOut, "--help") {
			t.Errorf("%v: exit %d, stderr %q; want 2 with the pointer to --help", args, code, errOut)
		}
	}
}

// A failure whose text happens to hold words cobra uses ("invalid
// argument" is EINVAL's) is an error, not wrong usage: exit 1, and the
// cause's text printed.
func TestWrappedEINVALIsAnError(t *testing.T) {
	code, _, errOut := run(t, "split", "--tasks", "bad\x00name.jsonl", "--out", filepath.Join(t.TempDir(), "o.jsonl"))
	if code != cmdkit.ExitError || !strings.Contains(errOut, "invalid argument") || strings.Contains(errOut, "for usage") {
		t.Fatalf("exit %d, stderr %q; want 1 naming the cause", code, errOut)
	}
}

// shopTaskFile writes the four scripted shop tasks of package evaltest.
func shopTaskFile(t *testing.T) string {
	var b bytes.Buffer
	for _, tk := range evaltest.ShopTasks() {
		line, err := json.Marshal(tk)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(append(line, '\n'))
	}
	return writeFile(t, "tasks.jsonl", b.String())
}

// A model server down for the whole run leaves samples missing: exit 3,
// "run again", and the progress line shows the retries and their cause.
func TestEvalWithWorkLeftExitsThree(t *testing.T) {
	srv := evaltest.New(evaltest.ShopReplies(), 0)
	defer srv.Close()
	for _, tk := range evaltest.ShopTasks() {
		srv.SetDown(tk.Question, true) // 503 with Retry-After: 0 on chat; /models is a 404 there
	}
	out := filepath.Join(t.TempDir(), "run")
	code, _, errOut := run(t, "eval", "--tasks", shopTaskFile(t), "--base-url", srv.BaseURL(), "--model", "m",
		"--k", "2", "--out", out)
	if code != cmdkit.ExitIncomplete || !strings.Contains(errOut, "run the same command again") {
		t.Fatalf("exit %d, stderr:\n%s", code, errOut)
	}
	if srv.Fails.Load() == 0 {
		t.Fatal("the server was never asked: the 404 on /models blocked the run")
	}
}

// The progress line names retries and their cause while they happen.
func TestEvalProgressShowsRetries(t *testing.T) {
	srv := evaltest.New(evaltest.ShopReplies(), 0)
	defer srv.Close()
	for _, tk := range evaltest.ShopTasks() {
		srv.SetDown(tk.Question, true)
	}
	srv.SetDelay(150 * time.Millisecond) // long enough for the once-a-second line to print
	var errOut bytes.Buffer
	code := Main([]string{"eval", "--tasks", shopTaskFile(t), "--base-url", srv.BaseURL(), "--model", "m",
		"--k", "1", "--concurrency", "1", "--out", filepath.Join(t.TempDir(), "run")},
		cmdkit.IO{In: strings.NewReader(""), Out: &bytes.Buffer{}, ErrOut: &errOut})
	if code != cmdkit.ExitIncomplete || !strings.Contains(errOut.String(), "model retries (last: HTTP 503 Service Unavailable)") {
		t.Fatalf("exit %d, stderr:\n%s", code, errOut.String())
	}
}

// A server that is not there stops eval before the run: no run folder, no
// 0/N samples, and the message asks whether the server is running.
func TestEvalServerDownStopsAtOnce(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	base := srv.URL + "/v1"
	srv.Close()
	out := filepath.Join(t.TempDir(), "run")
	// "At once" is what stopped it, not how soon: the pre-run check's one
	// request ("does not answer"), not the samples' retries, whose error
	// counts its attempts.
	code, _, errOut := run(t, "eval", "--tasks", shopTaskFile(t), "--base-url", base, "--model", "m", "--out", out)
	if code != cmdkit.ExitError || !strings.Contains(errOut, "does not answer (connection refused)") || !strings.Contains(errOut, "hint: is the server running at "+base+"?") {
		t.Fatalf("exit %d, stderr:\n%s", code, errOut)
	}
	if strings.Contains(errOut, "attempts") {
		t.Errorf("the samples retried a server that is down:\n%s", errOut)
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("a run folder was made for a server that is down")
	}
}

// hangingServer speaks the OpenAI wire protocol on /v1/models and never
// answers a chat completion; started is closed when the first one arrives.
func hangingServer(t *testing.T) (*httptest.Server, chan struct{}) {
	started, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/models") {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, `{"object":"list","data":[{"id":"m","object":"model"}]}`)
			return
		}
		once.Do(func() { close(started) })
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(release) }) // runs first: no handler outlives the test
	return srv, started
}

// Ctrl-C exits 130, whatever error the interrupted command returns.
func TestInterruptExits130(t *testing.T) {
	srv, started := hangingServer(t)
	done := make(chan int, 1)
	var errOut bytes.Buffer
	// The arguments are made here: shopTaskFile may t.Fatal, which only
	// the test's goroutine may call.
	args := []string{"eval", "--tasks", shopTaskFile(t), "--base-url", srv.URL + "/v1", "--model", "m",
		"--k", "1", "--out", filepath.Join(t.TempDir(), "run")}
	go func() {
		done <- Main(args, cmdkit.IO{In: strings.NewReader(""), Out: &bytes.Buffer{}, ErrOut: &errOut})
	}()
	select {
	case <-started:
	case <-time.After(60 * time.Second):
		t.Fatal("eval never asked the server")
	}
	if err := syscall.Kill(syscall.Getpid(), syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	select {
	case code := <-done:
		if code != cmdkit.ExitInterrupted || !strings.Contains(errOut.String(), "interrupted") {
			t.Fatalf("exit %d, stderr:\n%s", code, errOut.String())
		}
		// A plain message, not Go's "context canceled".
		if e := errOut.String(); strings.Contains(e, "context canceled") || !strings.Contains(e, "run the same command again") {
			t.Fatalf("stderr after Ctrl-C:\n%s", e)
		}
	case <-time.After(60 * time.Second):
		t.Fatal("eval did not stop on SIGINT")
	}
}

// A teacher server down for good stops author with the tasks kept: exit 3,
// --resume continues.
func TestAuthorServerDownExitsThree(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Retry-After", "0")
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusServiceUnavailable)
		fmt.Fprint(w, `{"error":{"message":"overloaded","type":"server_error"}}`)
	}))
	defer srv.Close()
	code, _, errOut := run(t, "author", "--teacher", "openai:m", "--base-url", srv.URL+"/v1", "--db", "shop", "--n", "3",
		"--out", filepath.Join(t.TempDir(), "tasks.jsonl"))
	if code != cmdkit.ExitIncomplete || !strings.Contains(errOut, "--resume") {
		t.Fatalf("exit %d, stderr:\n%s", code, errOut)
	}
}

// `sqlgym --help` documents every exit code.
func TestHelpDocumentsExitCodes(t *testing.T) {
	code, out, _ := run(t, "--help")
	for _, want := range []string{"Exit codes:", "  2    wrong usage", "  3    incomplete", "  130  interrupted"} {
		if code != cmdkit.ExitOK || !strings.Contains(out, want) {
			t.Errorf("--help lacks %q (exit %d)", want, code)
		}
	}
}
