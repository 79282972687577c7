package root

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/report"
)

// hintServer speaks the OpenAI chat completions protocol: it answers a
// task's gold when the prompt carries a shape hint and a wrong query
// otherwise, and keeps every prompt it was sent.
func hintServer(t *testing.T, golds map[string]string) (*httptest.Server, func() []string) {
	var mu sync.Mutex
	var seen []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/chat/completions" {
			http.NotFound(w, r)
			return
		}
		var req struct {
			Messages []struct{ Role, Content string } `json:"messages"`
		}
		b, _ := io.ReadAll(r.Body)
		if err := json.Unmarshal(b, &req); err != nil {
			http.Error(w, err.Error(), 400)
			return
		}
		user := req.Messages[len(req.Messages)-1].Content
		mu.Lock()
		seen = append(seen, user)
		mu.Unlock()
		answer := "SELECT 1 WHERE 0"
		if strings.Contains(user, "Hint: the correct result has") {
			for q, g := range golds {
				if strings.Contains(user, "Question: "+q) {
					answer = g
				}
			}
		}
		out, _ := json.Marshal(map[string]any{"id": "c1", "object": "chat.completion", "model": "m1",
			"usage":   map[string]int{"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
			"choices": []any{map[string]any{"index": 0, "finish_reason": "stop", "message": map[string]any{"role": "assistant", "content": "```sql\n" + answer + "\n```"}}}})
		w.Header().Set("Content-Type", "application/json")
		w.Write(out)
	}))
	t.Cleanup(srv.Close)
	return srv, func() []string { mu.Lock(); defer mu.Unlock(); return append([]string(nil), seen...) }
}

// eval --retry-failed RUN --hint shape asks only the tasks RUN failed,
// with the gold's shape in the prompt; the report says how many the hint
// recovered; curate sft --source self writes the recovered answers with
// the hint gone from the prompt.
func TestRetryFailedWithShapeHint(t *testing.T) {
	t.Setenv("SQLGYM_CACHE", t.TempDir())
	t.Setenv("OPENAI_API_KEY", "")
	dir := t.TempDir()
	tasks := []sqlgym.Task{
		{ID: "a", DB: "shop", Question: "How many orders are there?", SQL: "SELECT count(*) AS n FROM orders", Split: sqlgym.SplitTrain},
		{ID: "b", DB: "shop", Question: "Which three products cost the most?", SQL: "SELECT name, price FROM products ORDER BY price DESC, product_id LIMIT 3", Split: sqlgym.SplitTrain},
		{ID: "c", DB: "shop", Question: "What is one?", SQL: "SELECT 1 WHERE 0", Split: sqlgym.SplitTrain},
	}
	var tb strings.Builder
	if err := sqlgym.WriteTasks(&tb, tasks); err != nil {
		t.Fatal(err)
	}
	tf := filepath.Join(dir, "tasks.jsonl")
	if err := os.WriteFile(tf, []byte(tb.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	golds := map[string]string{}
	for _, tk := range tasks {
		golds[tk.Question] = tk.SQL
	}
	srv, prompts := hintServer(t, golds)
	base, hinted := filepath.Join(dir, "runs", "base"), filepath.Join(dir, "runs", "hint")
	common := []string{"eval", "--tasks", tf, "--split", "train", "--policy", "openai", "--base-url", srv.URL + "/v1", "--model", "m1", "--k", "1"}
	if code, _, errOut := run(t, append(common, "--out", base)...); code != 0 {
		t.Fatalf("base eval: %d %s", code, errOut)
	}
	// Task c's wrong answer is its gold's empty result: right. a and b fail.
	before := len(prompts())
	if code, _, errOut := run(t, append(common, "--out", hinted, "--retry-failed", base, "--hint", "shape")...); code != 0 {
		t.Fatalf("hint eval: %d %s", code, errOut)
	}
	asked := prompts()[before:]
	if len(asked) != 2 {
		t.Fatalf("the retry asked %d prompts, want the 2 failed tasks", len(asked))
	}
	for _, p := range asked {
		switch {
		case strings.Contains(p, "How many orders"):
			if !strings.Contains(p, "Hint: the correct result has 1 column(s) (n) and 1 row.") {
				t.Errorf("hint for a: %q", p[max(0, len(p)-120):])
			}
		case strings.Contains(p, "Which three products"):
			if !strings.Contains(p, "2 column(s) (name, price) and 3 rows.") {
				t.Errorf("hint for b: %q", p[max(0, len(p)-120):])
			}
		default:
			t.Errorf("a task the base run got right was asked again: %q", p)
		}
	}
	code, out, _ := run(t, "report", hinted, "--json")
	var rep struct {
		Hint *report.HintSummary `json:"hint"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &rep) != nil || rep.Hint == nil || rep.Hint.Tasks != 2 || rep.Hint.Recovered != 2 {
		t.Fatalf("report hint %+v (%d)", rep.Hint, code)
	}
	if _, text, _ := run(t, "report", hinted); !strings.Contains(text, "2 of 2 recovered") {
		t.Errorf("text report lacks the hint line:\n%s", text)
	}
	sft := filepath.Join(dir, "self.jsonl")
	if code, _, errOut := run(t, "curate", "sft", "--run", base, "--run", hinted, "--source", "self", "--replay", "0", "--out", sft); code != 0 {
		t.Fatalf("curate: %d %s", code, errOut)
	}
	rows := readRows(t, sft)
	if len(rows) != 2 {
		t.Fatalf("%d rows, want the 2 recovered tasks", len(rows))
	}
	for _, r := range rows {
		msgs := messages(t, r, "messages")
		if r["source"] != "self" || r["reason"] != "failed" || strings.Contains(msgs[len(msgs)-2]["content"].(string), "Hint:") {
			t.Errorf("row %v", r)
		}
	}
}
