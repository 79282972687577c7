package root

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/screen"

	"github.com/sqlgym/sqlgym/internal/cmd/cmdkit"
	datacmd "github.com/sqlgym/sqlgym/internal/cmd/data"
)

func TestScreenCommand(t *testing.T) {
	t.Setenv("SQLGYM_CACHE", t.TempDir())
	// On shop every order has its customer, so a LEFT JOIN to customers
	// counts the same: the join mistake is invisible, the task weak.
	tasks := writeFile(t, "tasks.jsonl",
		`{"id":"weak","db":"shop","question":"How many orders have a known customer?","sql":"SELECT COUNT(*) FROM orders JOIN customers ON orders.customer_id = customers.customer_id"}`+"\n"+
			`{"id":"strong","db":"shop","question":"How many customers are from France?","sql":"SELECT COUNT(*) FROM customers WHERE country = 'France'"}`+"\n")
	out := filepath.Join(t.TempDir(), "marked.jsonl")
	code, stdout, errOut := run(t, "screen", "--tasks", tasks, "--out", out)
	if code != cmdkit.ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(stdout, "1 weak of 2 screened tasks (50.0%)") || !strings.Contains(stdout, "join_type") ||
		!strings.Contains(stdout, "wrote 2 tasks") {
		t.Errorf("report:\n%s", stdout)
	}
	marked, err := sqlgym.ReadTasks(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(marked) != 2 || !screen.IsWeak(marked[0]) || screen.IsWeak(marked[1]) {
		t.Fatalf("marked tasks %+v", marked)
	}
	if m := screen.WeakMutants(marked[0]); len(m) != 1 || m[0].Kind != screen.JoinType || !strings.Contains(m[0].SQL, "LEFT JOIN customers") {
		t.Errorf("weak mutants %+v", m)
	}

	code, stdout, errOut = run(t, "screen", "--tasks", tasks, "--out", out, "--drop-weak", "--json", "--replace")
	if code != cmdkit.ExitOK {
		t.Fatalf("--drop-weak: exit %d: %s", code, errOut)
	}
	var res datacmd.ScreenJSON
	if err := json.Unmarshal([]byte(stdout), &res); err != nil {
		t.Fatalf("--json: %v\n%s", err, stdout)
	}
	if res.Weak != 1 || res.Written != 1 || res.WeakShare != 0.5 || res.Kinds[screen.JoinType].WeakTasks != 1 {
		t.Errorf("--json report %+v", res)
	}
	if kept, _ := sqlgym.ReadTasks(out); len(kept) != 1 || kept[0].ID != "strong" {
		t.Errorf("--drop-weak kept %+v", kept)
	}

	code, _, errOut = run(t, "screen", "--tasks", tasks, "--kinds", "drop_conjunct,nonsense")
	if code != cmdkit.ExitUsage || !strings.Contains(errOut, `unknown kind "nonsense"`) {
		t.Errorf("bad --kinds: exit %d, %q", code, errOut)
	}
	code, _, _ = run(t, "screen", "--tasks", tasks, "--drop-weak")
	if code != cmdkit.ExitUsage {
		t.Errorf("--drop-weak without --out: exit %d", code)
	}
}

func TestScreenBuiltInShopTasks(t *testing.T) {
	t.Setenv("SQLGYM_CACHE", t.TempDir())
	code, stdout, errOut := run(t, "screen", "--tasks", "shop", "--json")
	if code != cmdkit.ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var res datacmd.ScreenJSON
	if err := json.Unmarshal([]byte(stdout), &res); err != nil {
		t.Fatal(err)
	}
	if res.Tasks != 1000 || res.GoldErrors != 0 || res.Screened < 900 || res.Weak == 0 || res.Weak == res.Screened {
		t.Errorf("shop screen %+v", res.Report)
	}
}

// openAIServer answers every chat completion with the same pairs.
func openAIServer(t *testing.T, content string) *httptest.Server {
	b, _ := json.Marshal(map[string]any{"id": "c1", "object": "chat.completion", "model": "m1",
		"choices": []any{map[string]any{"index": 0, "finish_reason": "stop", "message": map[string]any{"role": "assistant", "content": content}}}})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/chat/completions" {
			http.NotFound(w, r)
			return
		}
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		w.Write(b)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestAuthorOpenAITeacherWithScreen(t *testing.T) {
	t.Setenv("SQLGYM_CACHE", t.TempDir())
	t.Setenv("OPENAI_API_KEY", "")
	pairs := fmt.Sprintf("```json\n%s\n```", `[
 {"question": "How many customers are from France?", "sql": "SELECT COUNT(*) FROM customers WHERE country = 'France'", "complexity": "filter"},
 {"question": "How many orders have a known customer?", "sql": "SELECT COUNT(*) FROM orders JOIN customers ON orders.customer_id = customers.customer_id", "complexity": "join"},
 {"question": "Missing SQL", "complexity": "join"},
 {"question": "What is the average price of a product?", "sql": "SELECT AVG(price) FROM products", "complexity": "aggregate"}]`)
	srv := openAIServer(t, pairs)
	out := filepath.Join(t.TempDir(), "tasks.jsonl")
	code, stdout, errOut := run(t, "author", "--teacher", "openai:m1", "--base-url", srv.URL+"/v1", "--db", "shop",
		"--n", "3", "--out", out, "--screen", "--json")
	if code != cmdkit.ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var res datacmd.AuthorResult
	if err := json.Unmarshal([]byte(stdout), &res); err != nil {
		t.Fatalf("--json: %v\n%s", err, stdout)
	}
	if res.Total != 3 || res.TeacherStats == nil || res.TeacherStats.BadItems == 0 || res.Screen == nil || res.Screen.Weak != 1 {
		t.Fatalf("result %+v (teacher %+v, screen %+v)", res, res.TeacherStats, res.Screen)
	}
	tasks, err := sqlgym.ReadTasks(out)
	if err != nil {
		t.Fatal(err)
	}
	weak := 0
	for _, tk := range tasks {
		if tk.Source != "teacher:openai:m1" {
			t.Errorf("task %s source %q", tk.ID, tk.Source)
		}
		if screen.IsWeak(tk) {
			weak++
		}
	}
	if len(tasks) != 3 || weak != 1 {
		t.Errorf("%d tasks, %d marked weak", len(tasks), weak)
	}
}

func TestAuthorTeacherUsage(t *testing.T) {
	t.Setenv("SQLGYM_CACHE", t.TempDir())
	t.Setenv("ANTHROPIC_API_KEY", "")
	out := filepath.Join(t.TempDir(), "t.jsonl")
	code, _, errOut := run(t, "author", "--teacher", "anthropic:claude-x", "--db", "shop", "--out", out)
	if code != cmdkit.ExitError || !strings.Contains(errOut, "ANTHROPIC_API_KEY") {
		t.Errorf("anthropic without a key: exit %d, %q", code, errOut)
	}
	code, _, errOut = run(t, "author", "--teacher", "gemini:x", "--db", "shop", "--out", out)
	if code != cmdkit.ExitUsage || !strings.Contains(errOut, "openai:MODEL or anthropic:MODEL") {
		t.Errorf("unknown teacher: exit %d, %q", code, errOut)
	}
}
