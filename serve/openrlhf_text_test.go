package serve

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// The reply OpenRLHF's decoded query holds, with the chat end tokens
// OpenRLHF keeps (skip_special_tokens=False, openrlhf/utils/agent.py) and
// prompts cut from the left.
func TestResponseOf(t *testing.T) {
	prompt := "<|im_start|>system\nYou write SQL.<|im_end|>\n<|im_start|>user\nHow many orders are there in the shop database?<|im_end|>\n<|im_start|>assistant\n"
	reply := "SELECT count(*) FROM orders"
	cases := []struct {
		name, query, prompt, want string
	}{
		{"exact prefix, im_end kept", prompt + reply + "<|im_end|>", prompt, reply},
		{"several end tokens and white space", prompt + reply + "\n<|im_end|>\n<|endoftext|><|endoftext|>", prompt, reply},
		{"llama eot", "x" + reply + "<|eot_id|>", "x", reply},
		{"gemma end of turn", "x" + reply + "<end_of_turn>\n<eos>", "x", reply},
		{"prompt cut from the left", prompt[40:] + reply + "<|im_end|>", prompt, reply},
		{"cut inside a character: a damaged first byte", "\ufffd" + prompt[41:] + reply + "</s>", prompt, reply},
		{"reply repeats the prompt's words", prompt[30:] + "How many orders are there? " + reply, prompt, "How many orders are there? " + reply},
		{"no prompt: the last assistant marker", prompt + reply + "<|im_end|>", "", reply},
		{"prompt unrelated: the last assistant marker", prompt + reply, "another prompt entirely", reply},
		{"nothing to go by: the whole query", reply + "<|im_end|>", "zzz", reply},
		{"an end token inside the reply stays", prompt + "a </s> b", prompt, "a </s> b"},
	}
	for _, c := range cases {
		if got := responseOf(c.query, c.prompt); got != c.want {
			t.Errorf("%s: responseOf = %q, want %q", c.name, got, c.want)
		}
	}
}

// Over HTTP: a bare statement followed by <|im_end|>, and a prompt
// OpenRLHF cut from the left, both score as correct; one sample per
// request, as OpenRLHF's SingleTurnAgentExecutor sends them.
func TestOpenRLHFChatTextScoresCorrect(t *testing.T) {
	_, hs := newTestServer(t, Config{})
	prompt := "<|im_start|>user\nHow many orders are there?<|im_end|>\n<|im_start|>assistant\n"
	for _, q := range []string{
		prompt + "SELECT count(*) FROM orders<|im_end|>",
		prompt[20:] + "SELECT count(*) FROM orders<|im_end|>",
	} {
		resp, body := post(t, hs.URL+"/get_reward", OpenRLHFRequest{Query: []string{q}, Prompts: []string{prompt}, Labels: []string{"orders"}})
		var got OpenRLHFResponse
		if err := json.Unmarshal(body, &got); err != nil || resp.StatusCode != 200 {
			t.Fatalf("%d %s", resp.StatusCode, body)
		}
		if !reflect.DeepEqual(got.Rewards, []float64{1}) || !reflect.DeepEqual(got.Scores, []float64{1}) {
			t.Errorf("query %q: rewards %v scores %v, want 1 and 1", q, got.Rewards, got.Scores)
		}
	}
}

func TestStripChatEnd(t *testing.T) {
	for in, want := range map[string]string{
		"SELECT 1<|im_end|>":           "SELECT 1",
		"SELECT 1 <|eot_id|>\n":        "SELECT 1",
		"SELECT 1<|end|><|endoftext|>": "SELECT 1",
		"SELECT 1<｜end▁of▁sentence｜>":  "SELECT 1",
		"SELECT '<|im_end|>' AS x":     "SELECT '<|im_end|>' AS x",
		strings.Repeat("<pad>", 3):     "",
	} {
		if got := stripChatEnd(in); got != want {
			t.Errorf("stripChatEnd(%q) = %q, want %q", in, got, want)
		}
	}
}
