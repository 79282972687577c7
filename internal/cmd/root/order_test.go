package root

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym/verify"

	"github.com/sqlgym/sqlgym/internal/cmd/cmdkit"
)

// --order reaches the strict comparison; a policy for a mode that takes
// none, or an unknown one, is a usage error.
func TestVerifyOrderFlag(t *testing.T) {
	t.Setenv("SQLGYM_CACHE", t.TempDir())
	tasks := writeFile(t, "tasks.jsonl", `{"id":"o","db":"shop","question":"First orders?","sql":"SELECT order_id FROM orders WHERE order_id <= 3 ORDER BY order_id"}
`)
	preds := writeFile(t, "preds.jsonl", `{"task_id":"o","sql":"SELECT order_id FROM orders WHERE order_id <= 3 ORDER BY order_id DESC"}
`)
	cases := []struct {
		args    []string
		code    int
		correct int
	}{
		{[]string{"--mode", "strict"}, cmdkit.ExitOK, 1},
		{[]string{"--mode", "strict", "--order", "ignore"}, cmdkit.ExitOK, 1},
		{[]string{"--mode", "strict", "--order", "gold_order_by"}, cmdkit.ExitOK, 0},
		{[]string{"--mode", "strict", "--order", "always"}, cmdkit.ExitOK, 0},
		{[]string{"--mode", "multiset"}, cmdkit.ExitOK, 0},
		{[]string{"--mode", "multiset", "--order", "ignore"}, cmdkit.ExitOK, 1},
		{[]string{"--mode", "bird", "--order", "always"}, cmdkit.ExitUsage, 0},
		{[]string{"--mode", "bird", "--order", "always", "--all-modes"}, cmdkit.ExitOK, 1},
		{[]string{"--mode", "strict", "--order", "sorted"}, cmdkit.ExitUsage, 0},
	}
	for _, c := range cases {
		args := append([]string{"verify", "--tasks", tasks, "--predictions", preds, "--json"}, c.args...)
		code, stdout, stderr := run(t, args...)
		if code != c.code {
			t.Errorf("%s: exit %d, want %d: %s", strings.Join(c.args, " "), code, c.code, stderr)
			continue
		}
		if code != cmdkit.ExitOK {
			if !strings.Contains(stderr, "--order") {
				t.Errorf("%s: the message does not name --order: %s", strings.Join(c.args, " "), stderr)
			}
			continue
		}
		var sum verify.Summary
		if err := json.Unmarshal([]byte(stdout), &sum); err != nil {
			t.Fatalf("summary is not JSON: %v\n%s", err, stdout)
		}
		if sum.Outcomes["correct"] != c.correct {
			t.Errorf("%s: %d correct, want %d", strings.Join(c.args, " "), sum.Outcomes["correct"], c.correct)
		}
	}
}
