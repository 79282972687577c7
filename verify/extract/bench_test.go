package extract

import (
	"strings"
	"testing"
)

// A reply shaped like Qwen3's: a few KB of reasoning, then a fenced answer
// and a short explanation.
var qwenReply = "<think>\n" + strings.Repeat("The question asks for singers older than thirty; the singer table has name, country and age. I don't need a join. ", 40) +
	"\n</think>\n\nHere is the query:\n\n```sql\nSELECT name, country\nFROM singer\nWHERE age > 30\nORDER BY age DESC;\n```\n\nIt filters on age and sorts the oldest first."

func BenchmarkFromCompletionQwen(b *testing.B) {
	b.SetBytes(int64(len(qwenReply)))
	for b.Loop() {
		if r := FromCompletion(qwenReply, "stop"); r.Status != StatusOK {
			b.Fatal(r)
		}
	}
}

// The worst case for the bare rule: many lines that start a statement
// that never becomes plausible.
func BenchmarkFromCompletionManyStarts(b *testing.B) {
	reply := strings.Repeat("select x\n", 2000)
	b.SetBytes(int64(len(reply)))
	for b.Loop() {
		FromCompletion(reply, "stop")
	}
}

func TestManyCandidateStarts(t *testing.T) {
	// Each of the 2000 starts is a SELECT without FROM that is not the
	// whole reply, so none is a statement.
	reply := strings.Repeat("select x\n\n", 2000)
	if r := FromCompletion(reply, "stop"); r.Status != StatusNoQuery {
		t.Fatalf("got %+v", r)
	}
}
