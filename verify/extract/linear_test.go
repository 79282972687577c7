package extract

import (
	"flag"
	"fmt"
	"strings"
	"testing"
	"time"
)

// hostileShapes are fragments that, repeated, made some rule read the rest
// of the reply once per repetition before extraction was made linear.
var hostileShapes = []string{
	"<sql>", "<answer>", "<solution>", "<answer>x", "<sql>```\n", "<answer>```sql\n<sql>",
	"<thi", "<think>", "</think>", "<thi<think>x</think>nk>", "with\n", "select (\n", "select x\n",
	"`select ", "select\n\n/*\n", ": SELECT x\n", "<sql>with\n", "```\n<answer>", "<ANSWER>`",
}

// nestedOpens reports whether some answer tag opens twice with no close of
// its name between: the one shape where the linear tag rule and the
// reference differ on purpose (docs/extraction.md).
func nestedOpens(s string) bool {
	lower := asciiLower(s)
	for _, t := range answerTags {
		if n := len(appendTags(nil, s, lower, t.name, t.method)); n != strings.Count(lower, "<"+t.name+">") {
			return true
		}
	}
	return false
}

// perByteBound is far above what linear extraction costs (tens of ns a
// byte, about 1 µs on the bare rule's worst shapes) and far below what the
// quadratic rules cost on 32-64 KB (hundreds of µs a byte). It bounds the
// CPU time of the extracting thread, not wall time: a loaded machine
// delays the work but does not make more of it, so the bound tells linear
// from quadratic whatever the load. BenchmarkHostileShapes measures the
// cost itself at two sizes (docs/extraction.md).
const perByteBound = 5 * time.Microsecond

func checkLinear(t *testing.T, reply string) {
	t.Helper()
	cpu := onThreadCPU(func() { FromCompletion(reply, "stop") })
	bound := time.Duration(len(reply))*perByteBound + 50*time.Millisecond
	if f := flag.Lookup("test.fuzz"); f != nil && f.Value.String() != "" {
		bound *= 4 // the fuzzer's coverage counters slow every branch
	}
	if cpu > bound {
		t.Fatalf("extraction of %d bytes (%.40q...) took %v of CPU, over %v", len(reply), reply, cpu, bound)
	}
}

func TestHostileShapesLinear(t *testing.T) {
	for _, f := range hostileShapes {
		checkLinear(t, strings.Repeat(f, 64<<10/len(f)))
	}
}

func TestReplyCap(t *testing.T) {
	at := strings.Repeat(" ", MaxReplyBytes-len("SELECT 1")) + "SELECT 1"
	if r := FromCompletion(at, "stop"); r.Status != StatusOK || r.SQL != "SELECT 1" {
		t.Fatalf("a reply of exactly MaxReplyBytes: got %+v", r)
	}
	if r := FromCompletion(" "+at, "stop"); r != (Result{Status: StatusNoQuery}) {
		t.Fatalf("a reply past MaxReplyBytes: got %+v, want no_query", r)
	}
	if r := FromCompletion(" "+at, "length"); r.Status != StatusTruncated {
		t.Fatalf("a cut-off reply past the cap: got %+v, want truncated", r)
	}
}

func TestNestedOpensLastCounts(t *testing.T) {
	runCases(t, []extractCase{
		{name: "unclosed tags in a row hold nothing", reply: strings.Repeat("<sql>", 50), status: StatusNoQuery},
		{name: "the innermost of nested opens", reply: "<sql><sql>SELECT a FROM t</sql>", sql: "SELECT a FROM t", method: MethodTagSQL},
		{name: "an outer tag does not take the inner one's text",
			reply: "<answer>SELECT a FROM t <answer>6</answer>", status: StatusNoQuery},
		{name: "answer around sql, both unclosed", reply: "<answer><sql>SELECT a FROM t", sql: "SELECT a FROM t", method: MethodTagSQL},
	})
}

func TestBareWorkBoundUnreached(t *testing.T) {
	for _, reply := range []string{qwenReply, "Here it is:\n\nSELECT a\nFROM t\n\nWHERE b = 1;\n\nDone.",
		strings.Repeat("select x\n", 2000), strings.Repeat("The answer: SELECT a FROM t;\n", 3000)} {
		if _, out := bareWithin(reply, bareWork*len(reply)+bareWorkMin); out {
			t.Errorf("bare work bound reached on an ordinary reply (%.60q...)", reply)
		}
	}
	// A hostile reply reaches it, and the bound holds what was found.
	reply := "SELECT a FROM t;\n" + strings.Repeat("with\n", 40000)
	sql, out := bareWithin(reply, bareWork*len(reply)+bareWorkMin)
	if !out || sql != "SELECT a FROM t" {
		t.Fatalf("hostile reply: got %q, bound reached %v", sql, out)
	}
}

// FuzzLinearExtraction repeats a fragment into a long reply between a head
// and a tail, and checks that extraction stays within a time bound linear
// in the reply, and that short replies get what the reference rules give.
func FuzzLinearExtraction(f *testing.F) {
	for _, s := range hostileShapes {
		f.Add("", s, "")
	}
	f.Add("```sql\n", "<sql>", "```")
	f.Add("<think>", "<answer>SELECT 1</answer>", "")
	f.Add("Query: ", "`SELECT a FROM t` <solution>", "</solution>")
	f.Fuzz(func(t *testing.T, head, frag, tail string) {
		if len(head)+len(frag)+len(tail) > 512 {
			return
		}
		short := head + strings.Repeat(frag, 8) + tail
		checkEquivalent(t, short)
		if frag != "" {
			checkLinear(t, head+strings.Repeat(frag, 32<<10/len(frag))+tail)
		}
	})
}

// checkEquivalent compares each linear rule with its reference where they
// are meant to agree.
func checkEquivalent(t *testing.T, s string) {
	t.Helper()
	if refPasses(s) < maxReasoningPasses {
		if got, want := stripReasoning(s), refStripReasoning(s); got != want {
			t.Fatalf("stripReasoning(%q) = %q, reference %q", s, got, want)
		}
	} else if got := stripReasoning(s); got != "" {
		t.Fatalf("stripReasoning(%q) = %q past the bound on passes, want all reasoning", s, got)
	}
	if nestedOpens(s) {
		return
	}
	if gs, gm := fromTags(s); true {
		if ws, wm := refFromTags(s); gs != ws || gm != wm {
			t.Fatalf("fromTags(%q) = %q %s, reference %q %s", s, gs, gm, ws, wm)
		}
	}
	if got, out := bareWithin(s, bareWork*len(s)+bareWorkMin); !out {
		if want := refBare(s); got != want {
			t.Fatalf("bare(%q) = %q, reference %q", s, got, want)
		}
	}
	if visible := stripReasoning(s); !nestedOpens(visible) && refPasses(s) < maxReasoningPasses {
		if got, want := FromCompletion(s, "stop"), refFromCompletion(s, "stop"); got != want {
			t.Fatalf("FromCompletion(%q) = %+v, reference %+v", s, got, want)
		}
	}
}

// BenchmarkUnclosedTags shows the time per byte flat from 5,000 to 200,000
// unclosed <sql> tags (25 KB to 1 MB), the red team's r1_tag shape.
func BenchmarkUnclosedTags(b *testing.B) {
	for _, n := range []int{5000, 20000, 50000, 200000} {
		reply := strings.Repeat("<sql>", n)
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			b.SetBytes(int64(len(reply)))
			for b.Loop() {
				FromCompletion(reply, "stop")
			}
		})
	}
}

// refPasses counts the passes the reference makes that change the reply.
func refPasses(s string) int {
	n := 0
	for t := refStripReasoningOnce(s); t != s; t = refStripReasoningOnce(s) {
		s = t
		n++
	}
	return n
}

func TestReasoningPassesBounded(t *testing.T) {
	// joined(k) needs k passes: each level's tags are whole only once the
	// level inside is removed.
	var joined func(k int) string
	joined = func(k int) string {
		if k == 1 {
			return "<think>x</think>"
		}
		in := joined(k - 1)
		return "<" + in + "think>x<" + in + "/think>"
	}
	answer := "\n```sql\nSELECT 1 FROM t\n```"
	if n := refPasses(joined(maxReasoningPasses) + answer); n != maxReasoningPasses {
		t.Fatalf("the reference takes %d passes, want %d", n, maxReasoningPasses)
	}
	if r := FromCompletion(joined(maxReasoningPasses-1)+answer, "stop"); r.SQL != "SELECT 1 FROM t" {
		t.Fatalf("tags joined %d deep: got %+v", maxReasoningPasses-1, r)
	}
	if r := FromCompletion(joined(maxReasoningPasses)+answer, "stop"); r.Status != StatusNoQuery {
		t.Fatalf("tags joined past the bound on passes: got %+v, want no_query", r)
	}
	checkLinear(t, joined(14)+answer)
}

// BenchmarkHostileShapes measures the time per byte of the other hostile
// shapes at 64 KB and 512 KB: flat when extraction is linear.
func BenchmarkHostileShapes(b *testing.B) {
	for _, f := range []string{"<answer>x", "with\n", "select (\n", ": SELECT x\n", "<thi<think>x</think>nk>"} {
		for _, size := range []int{64 << 10, 512 << 10} {
			reply := strings.Repeat(f, size/len(f))
			b.Run(fmt.Sprintf("%q/%dKB", f, size>>10), func(b *testing.B) {
				b.SetBytes(int64(len(reply)))
				for b.Loop() {
					FromCompletion(reply, "stop")
				}
			})
		}
	}
}
