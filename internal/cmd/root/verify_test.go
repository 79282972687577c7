package root

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym/verify"

	"github.com/sqlgym/sqlgym/internal/cmd/cmdkit"
)

func TestVerifyCommandOnShop(t *testing.T) {
	t.Setenv("SQLGYM_CACHE", t.TempDir())
	tasks := writeFile(t, "tasks.jsonl", `{"id":"n","db":"shop","question":"How many orders?","sql":"SELECT count(*) FROM orders"}
{"id":"c","db":"shop","question":"How many customers?","sql":"SELECT count(*) FROM customers"}
`)
	preds := writeFile(t, "preds.jsonl", `{"task_id":"n","sql":"SELECT COUNT(*) FROM orders"}
{"task_id":"n","completion":"<think>hmm</think>\n`+"```sql\\nSELECT count(*) FROM orders WHERE 1=0\\n```"+`"}
{"task_id":"c","completion":"I cannot answer."}
{"task_id":"c","sql":"SELECT count(*) FROM customer"}
{"task_id":"c","completion":"SELECT count(*) FROM cust","finish_reason":"length"}
`)
	out := filepath.Join(t.TempDir(), "r.jsonl")
	code, stdout, stderr := run(t, "verify", "--tasks", tasks, "--predictions", preds, "--out", out, "--json", "--all-modes")
	if code != cmdkit.ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var sum verify.Summary
	if err := json.Unmarshal([]byte(stdout), &sum); err != nil {
		t.Fatalf("summary is not JSON: %v\n%s", err, stdout)
	}
	if sum.Total != 5 || sum.Outcomes["correct"] != 1 || sum.Outcomes["wrong"] != 1 || sum.Outcomes["no_query"] != 1 ||
		sum.Outcomes["error"] != 1 || sum.Outcomes["truncated"] != 1 || sum.Accuracy != 0.2 {
		t.Fatalf("summary %+v", sum)
	}
	// mean reward over non-null rewards: (1 + 0.1 + 0 + 0) / 4
	if sum.MeanReward < 0.2749 || sum.MeanReward > 0.2751 {
		t.Fatalf("mean reward %v", sum.MeanReward)
	}
	f, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var got []verify.Result
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var r verify.Result
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		got = append(got, r)
	}
	want := []string{"correct", "wrong", "no_query", "error", "truncated"}
	if len(got) != len(want) {
		t.Fatalf("%d results", len(got))
	}
	for i, w := range want {
		if string(got[i].Outcome) != w {
			t.Errorf("result %d: %s, want %s (input order)", i, got[i].Outcome, w)
		}
	}
	if got[1].Sample != 1 || got[1].SQL != "SELECT count(*) FROM orders WHERE 1=0" || len(got[0].Modes) != 6 {
		t.Fatalf("result fields: %+v", got[1])
	}
	if got[4].Reward != nil {
		t.Fatalf("truncated got a reward %v", *got[4].Reward)
	}
}

func TestVerifyCommandErrors(t *testing.T) {
	t.Setenv("SQLGYM_CACHE", t.TempDir())
	tasks := writeFile(t, "tasks.jsonl", `{"id":"n","db":"shop","sql":"SELECT 1"}
{"id":"m","db":"elsewhere","sql":"SELECT 1"}
`)
	preds := writeFile(t, "preds.jsonl", `{"task_id":"zzz","sql":"SELECT 1"}`+"\n")
	code, _, stderr := run(t, "verify", "--tasks", tasks, "--predictions", preds)
	if code != cmdkit.ExitError || !strings.Contains(stderr, `names task "zzz"`) || !strings.Contains(stderr, "hint:") {
		t.Fatalf("unknown task: exit %d %q", code, stderr)
	}
	preds = writeFile(t, "preds2.jsonl", `{"task_id":"n","sql":"SELECT 1"}`+"\n"+`{"task_id":"n"}`+"\n")
	code, _, stderr = run(t, "verify", "--tasks", tasks, "--predictions", preds)
	if code != cmdkit.ExitError || !strings.Contains(stderr, `preds2.jsonl:2: give "sql" or "completion"`) {
		t.Fatalf("bad prediction: exit %d %q", code, stderr)
	}
	preds = writeFile(t, "preds3.jsonl", `{"task_id":"m","sql":"SELECT 1"}`+"\n")
	code, _, stderr = run(t, "verify", "--tasks", tasks, "--predictions", preds)
	if code != cmdkit.ExitError || !strings.Contains(stderr, `unknown database "elsewhere"`) || !strings.Contains(stderr, "--db elsewhere=") {
		t.Fatalf("unresolvable database: exit %d %q", code, stderr)
	}
	code, _, stderr = run(t, "verify", "--tasks", tasks, "--predictions", preds, "--mode", "fuzzy")
	if code != cmdkit.ExitUsage || !strings.Contains(stderr, "multiset") {
		t.Fatalf("bad mode: exit %d %q", code, stderr)
	}
}
