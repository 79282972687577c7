package extract

import (
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym/sqltext"
)

func FuzzFromCompletion(f *testing.F) {
	for _, s := range []string{
		"<think>\nx ```sql\nSELECT 1\n```\n</think>\n\n```sql\nSELECT name FROM singer;\n```",
		"reasoning</think>```sql\nSELECT 1 FROM t;```",
		"```sql SELECT a FROM t```", "```\nWITH x AS (SELECT 1) SELECT * FROM x",
		"<answer>\nSELECT a FROM t", "<sql>SELECT a FROM t ```</sql>", "<answer>`SELECT 1`</answer>",
		"The query is: SELECT name FROM singer\nThis returns names.",
		"WITH s AS (\n SELECT 1\n)\n\nSELECT * FROM s;\n\nDone.",
		"<thi<think>x</think>nk>", "`SELECT 1", "SELECT '", "select\n\n\nfrom",
	} {
		f.Add(s, "stop")
	}
	f.Add("```sql\nSELECT 1", "length")
	f.Fuzz(func(t *testing.T, completion, finish string) {
		r := FromCompletion(completion, finish)
		switch r.Status {
		case StatusOK:
			if r.SQL == "" || r.Method == "" {
				t.Fatalf("ok with SQL %q method %q", r.SQL, r.Method)
			}
		case StatusNoQuery, StatusTruncated:
			if r.SQL != "" || r.Method != "" {
				t.Fatalf("%s with SQL %q method %q", r.Status, r.SQL, r.Method)
			}
		default:
			t.Fatalf("unknown status %q", r.Status)
		}
		if (r.Status == StatusTruncated) != (strings.EqualFold(strings.TrimSpace(finish), "length") || strings.EqualFold(strings.TrimSpace(finish), "max_tokens")) {
			t.Fatalf("status %s for finish reason %q", r.Status, finish)
		}
		if strings.Contains(r.SQL, "```") || strings.Contains(strings.ToLower(r.SQL), "<think>") {
			t.Fatalf("SQL holds a fence or a think tag: %q", r.SQL)
		}
		if sqltext.TrimStatement(r.SQL) != r.SQL {
			t.Fatalf("SQL not trimmed: %q", r.SQL)
		}
	})
}
