package extract

import "strings"

var (
	thinkOpen  = []string{"<think>", "<thinking>"}
	thinkClose = []string{"</think>", "</thinking>"}
)

// stripReasoning removes reasoning from a reply: every <think>...</think>
// block (or <thinking>, any letter case), an unclosed <think> and all after
// it, and everything before a </think> that has no opening tag, which is
// what a reply looks like when the chat template put the <think> in the
// prompt (Qwen3, DeepSeek-R1). It repeats until nothing changes, so that
// removing a block cannot join two halves into a new tag
// ("<thi<think>x</think>nk>"). Each pass reads the whole reply, and a
// hostile reply can nest such halves as deep as it is long, so after
// maxReasoningPasses the reply is taken as all reasoning: nothing of it is
// an answer.
func stripReasoning(s string) string {
	for range maxReasoningPasses {
		t := stripReasoningOnce(s)
		if t == s {
			return s
		}
		s = t
	}
	return ""
}

// maxReasoningPasses bounds the passes of stripReasoning. A reply joins
// tags by removal only by design, so no honest reply needs more than one.
const maxReasoningPasses = 8

func stripReasoningOnce(s string) string {
	lower := asciiLower(s)
	var b strings.Builder
	pos, inside := 0, false
	for i := 0; i < len(s); {
		j := strings.IndexByte(lower[i:], '<')
		if j < 0 {
			break
		}
		j += i
		if n := hasTag(lower[j:], thinkOpen); n > 0 {
			if !inside {
				b.WriteString(s[pos:j])
				inside = true
			}
			i = j + n
			continue
		}
		if n := hasTag(lower[j:], thinkClose); n > 0 {
			if !inside {
				// Reasoning began before the reply did.
				b.Reset()
			}
			inside = false
			pos, i = j+n, j+n
			continue
		}
		i = j + 1
	}
	if !inside {
		b.WriteString(s[pos:])
	}
	return b.String()
}

func hasTag(s string, tags []string) int {
	for _, t := range tags {
		if strings.HasPrefix(s, t) {
			return len(t)
		}
	}
	return 0
}
