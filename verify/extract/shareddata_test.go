package extract

import (
	"testing"

	"github.com/sqlgym/sqlgym/internal/testenv"
	"github.com/sqlgym/sqlgym/sqltext"
)

// TestPublicGoldsInReplies wraps every public gold in the reply shapes
// models produce and checks that extraction gives the gold back.
func TestPublicGoldsInReplies(t *testing.T) {
	shapes := []struct {
		method string
		wrap   func(string) string
	}{
		{MethodFenceSQL, func(g string) string {
			return "<think>\nI need ```sql\nSELECT 1\n``` no.\n</think>\n\n```sql\n" + g + "\n```\n\nThis answers the question."
		}},
		{MethodFenceSQL, func(g string) string {
			return "Let me check the schema.</think>\n```sql\n" + g + ";```"
		}},
		{MethodFence, func(g string) string { return "Query:\n```\n" + g + "\n```" }},
		{MethodTagAnswer, func(g string) string { return "<think>ok</think>\n<answer>\n" + g + "\n</answer>" }},
		{MethodTagSQL, func(g string) string { return "<sql>" + g + "</sql>" }},
		{MethodBare, func(g string) string { return g }},
		{MethodBare, func(g string) string { return "Here it is:\n\n" + g + ";\n\nIt returns what was asked." }},
	}
	n := 0
	for _, gold := range testenv.SharedGolds(t, false) {
		want := sqltext.TrimStatement(gold)
		for _, s := range shapes {
			reply := s.wrap(gold)
			got := FromCompletion(reply, "stop")
			if got.SQL != want || got.Method != s.method {
				t.Errorf("reply %q\n got %+v\nwant SQL %q by %s", reply, got, want, s.method)
			}
		}
		n++
	}
	if n < 1000 {
		t.Fatalf("only %d golds read", n)
	}
	t.Logf("%d golds x %d reply shapes extracted", n, len(shapes))
}
