package serve

import (
	"strings"
)

// OpenRLHF decodes prompt + response with skip_special_tokens=False
// (openrlhf/utils/agent.py, SingleTurnAgentExecutor.execute), so a query
// ends with the chat template's end-of-turn token and, when the prompt was
// longer than its budget, starts with only the prompt's tail (the prompt's
// tokens are cut from the left). These helpers find the model's reply in
// such a text.

// chatEndTokens are the end-of-turn and end-of-text tokens of common chat
// templates. A reply that ends with one would otherwise reach extraction,
// where a bare statement followed by "<|im_end|>" is not SQL.
var chatEndTokens = []string{
	"<|im_end|>", "<|endoftext|>", "</s>", "<|eot_id|>", "<|eom_id|>", "<|end|>",
	"<end_of_turn>", "<eos>", "<|end_of_text|>", "<|return|>", "<pad>",
	"<｜end▁of▁sentence｜>", "<|end_of_sentence|>",
}

// stripChatEnd removes trailing end-of-turn tokens (and the white space
// around them), however many the decoder left.
func stripChatEnd(s string) string {
	for {
		t := strings.TrimRight(s, " \t\r\n")
		for _, tok := range chatEndTokens {
			t = strings.TrimSuffix(t, tok)
		}
		if t == s {
			return s
		}
		s = t
	}
}

// assistantMarkers open an assistant turn in common chat templates; the
// reply follows the last one.
var assistantMarkers = []string{
	"<|im_start|>assistant\n", "<|start_header_id|>assistant<|end_header_id|>\n\n",
	"<|start_header_id|>assistant<|end_header_id|>", "<start_of_turn>model\n", "<|assistant|>\n",
	"<|assistant|>", "<｜Assistant｜>", "<|im_start|>assistant",
}

// promptTail is how much of the prompt's end is searched for in the query
// when the prompt is not its prefix.
const promptTail = 64

// leadSlack is how many bytes at the query's start may differ from the
// prompt: a prompt cut inside a multi-byte character decodes its first
// token as replacement characters.
const leadSlack = 16

// responseOf is the model's reply in query: what follows the prompt when
// the prompt is a prefix, else what follows the longest tail of the prompt
// the query starts with (a prompt cut from the left), else what follows
// the last assistant-turn marker, else the whole query; trailing
// end-of-turn tokens removed.
func responseOf(query, prompt string) string {
	switch {
	case prompt != "" && strings.HasPrefix(query, prompt):
		query = query[len(prompt):]
	case prompt != "":
		if end, ok := promptSuffixEnd(query, prompt); ok {
			query = query[end:]
		} else if i, n := lastMarker(query); i >= 0 {
			query = query[i+n:]
		}
	default:
		if i, n := lastMarker(query); i >= 0 {
			query = query[i+n:]
		}
	}
	return stripChatEnd(query)
}

// promptSuffixEnd finds where the prompt's tail ends in query when query
// starts with a tail of prompt (up to leadSlack bytes of a damaged first
// character): the end of the longest such tail.
func promptSuffixEnd(query, prompt string) (int, bool) {
	tail := prompt[len(prompt)-min(len(prompt), promptTail):]
	best := -1
	for from := 0; ; {
		i := strings.Index(query[from:], tail)
		if i < 0 {
			break
		}
		end := from + i + len(tail)
		if end > len(prompt)+leadSlack {
			break // longer than the prompt: the tail is in the reply
		}
		for lead := 0; lead <= leadSlack && lead < end; lead++ {
			if strings.HasSuffix(prompt, query[lead:end]) {
				best = end
				break
			}
		}
		from += i + 1
	}
	return best, best >= 0
}

func lastMarker(s string) (at, n int) {
	at = -1
	for _, m := range assistantMarkers {
		if i := strings.LastIndex(s, m); i >= 0 && (i > at || (i == at && len(m) > n)) {
			at, n = i, len(m)
		}
	}
	return at, n
}
