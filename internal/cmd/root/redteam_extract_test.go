package root

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/internal/testenv"
	"github.com/sqlgym/sqlgym/verify"
	"github.com/sqlgym/sqlgym/verify/extract"

	"github.com/sqlgym/sqlgym/internal/cmd/cmdkit"
)

// TestRedTeamTagReplies replays the red team's replies of thousands of
// unclosed <sql> tags through `sqlgym verify` on the shop (issue 25): they
// used to cost 13 s and 69 s of extraction each and now read in one pass.
// Unclosed tags in a row hold nothing (docs/extraction.md), so they are
// no_query; the 95 KB of closed tags stay correct.
func TestRedTeamTagReplies(t *testing.T) {
	t.Setenv("SQLGYM_CACHE", t.TempDir())
	tasks := testenv.RedTeamFile(t, "tasks_one.jsonl")
	for _, c := range []struct{ file, outcome string }{
		{"r1_tag_5000.jsonl", "no_query"},
		{"r1_tag_10000.jsonl", "no_query"},
		{"r1_tag_control.jsonl", "correct"},
	} {
		preds := testenv.RedTeamFile(t, c.file)
		code, stdout, stderr := run(t, "verify", "--tasks", tasks, "--predictions", preds, "--json")
		if code != cmdkit.ExitOK {
			t.Fatalf("%s: exit %d: %s", c.file, code, stderr)
		}
		var sum verify.Summary
		if err := json.Unmarshal([]byte(stdout), &sum); err != nil {
			t.Fatalf("%s: summary is not JSON: %v\n%s", c.file, err, stdout)
		}
		if sum.Total != 1 || sum.Outcomes[sqlgym.Outcome(c.outcome)] != 1 {
			t.Errorf("%s: outcomes %v, want one %s", c.file, sum.Outcomes, c.outcome)
		}
	}
}

// A reply past extract.MaxReplyBytes is no_query without being read, and
// the detail says why.
func TestVerifyReplyPastTheCap(t *testing.T) {
	t.Setenv("SQLGYM_CACHE", t.TempDir())
	tasks := writeFile(t, "tasks.jsonl", `{"id":"one","db":"shop","sql":"SELECT 1"}`+"\n")
	reply := strings.Repeat(" ", extract.MaxReplyBytes) + "SELECT 1"
	line, _ := json.Marshal(map[string]string{"task_id": "one", "completion": reply})
	preds := writeFile(t, "preds.jsonl", string(line)+"\n")
	out := filepath.Join(t.TempDir(), "r.jsonl")
	if code, _, stderr := run(t, "verify", "--tasks", tasks, "--predictions", preds, "--out", out); code != cmdkit.ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var r verify.Result
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	if r.Outcome != sqlgym.OutcomeNoQuery || !strings.Contains(r.Detail, "over the 1048576 that are read") {
		t.Fatalf("got %s %q, want no_query naming the cap", r.Outcome, r.Detail)
	}
}
