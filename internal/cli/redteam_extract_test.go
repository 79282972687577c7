package cli

import (
	"encoding/json"
	"testing"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/internal/testenv"
	"github.com/sqlgym/sqlgym/verify"
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
		if code != ExitOK {
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
