package root

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/curate"
	"github.com/sqlgym/sqlgym/shopdb"
	"github.com/sqlgym/sqlgym/verify/extract"

	"github.com/sqlgym/sqlgym/internal/cmd/cmdkit"
)

// readRows reads a JSONL file into generic objects, as Python's json and
// Hugging Face datasets read it.
func readRows(t *testing.T, path string) []map[string]any {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var rows []map[string]any
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		rows = append(rows, m)
	}
	return rows
}

// messages checks a column the way TRL v1.9.0 reads it: is_conversational
// (trl/data_utils.py:160-195) takes the first of the supported keys
// "prompt", "chosen", "rejected", "completion", "messages" (:184) and
// wants a list of dicts with "role" and "content"; apply_chat_template
// (:214-222) accepts exactly {"messages"} for language modelling and
// {"prompt", "chosen", "rejected"} for preference rows among those keys,
// and refuses a prompt whose last role is neither user nor assistant.
func messages(t *testing.T, row map[string]any, key string) []map[string]any {
	t.Helper()
	list, ok := row[key].([]any)
	if !ok || len(list) == 0 {
		t.Fatalf("column %q is not a non-empty list of messages: %v", key, row[key])
	}
	var out []map[string]any
	for _, m := range list {
		msg, ok := m.(map[string]any)
		if !ok {
			t.Fatalf("%q holds a non-message %v", key, m)
		}
		if _, ok := msg["role"].(string); !ok {
			t.Fatalf("%q message without a role: %v", key, msg)
		}
		if _, ok := msg["content"].(string); !ok {
			t.Fatalf("%q message without string content: %v", key, msg)
		}
		out = append(out, msg)
	}
	return out
}

func trlKeys(row map[string]any) []string {
	var ks []string
	for _, k := range []string{"prompt", "chosen", "rejected", "completion", "messages", "label"} {
		if _, ok := row[k]; ok {
			ks = append(ks, k)
		}
	}
	return ks
}

// A baseline run over shop tasks of both splits (k=2), then curate sft and
// curate dpo: the files load as TRL's SFTTrainer and DPOTrainer read them,
// no held-out task is written, every answer reads back to SQL, the manifest
// counts what was written and the ledger has the lines; an existing output
// is refused without --replace.
func TestCurateSFTAndDPOOnShopRun(t *testing.T) {
	all, err := shopdb.Tasks()
	if err != nil {
		t.Fatal(err)
	}
	// 300 train and 20 held-out tasks keep the run small; the baseline
	// retrieves its answers from the train tasks, so it needs a few hundred.
	var tasks []sqlgym.Task
	heldOut := map[string]bool{}
	nTrain, nHold := 0, 0
	for _, tk := range all {
		switch {
		case tk.Split == sqlgym.SplitHoldout && nHold < 20:
			nHold++
			heldOut[tk.ID] = true
		case tk.Split != sqlgym.SplitHoldout && nTrain < 300:
			nTrain++
		default:
			continue
		}
		tasks = append(tasks, tk)
	}
	dir := t.TempDir()
	tf := filepath.Join(dir, "tasks.jsonl")
	var tb strings.Builder
	if err := sqlgym.WriteTasks(&tb, tasks); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(tf, []byte(tb.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	runDir := filepath.Join(dir, "runs", "base")
	if code, _, errOut := run(t, "eval", "--tasks", tf, "--split", "all", "--policy", "baseline", "--k", "2", "--seed", "1", "--out", runDir); code != 0 {
		t.Fatalf("eval: %d %s", code, errOut)
	}

	sft := filepath.Join(dir, "sft.jsonl")
	code, out, errOut := run(t, "curate", "sft", "--run", runDir, "--out", sft, "--per-class", "2", "--json")
	if code != 0 {
		t.Fatalf("curate sft: %d %s", code, errOut)
	}
	var m curate.Manifest
	if err := json.Unmarshal([]byte(out), &m); err != nil {
		t.Fatalf("--json: %v\n%s", err, out)
	}
	rows := readRows(t, sft)
	if len(rows) == 0 || m.Rows != len(rows) || m.Checked == 0 {
		t.Fatalf("%d rows, manifest %+v", len(rows), m)
	}
	reasons := map[string]int{}
	for _, r := range rows {
		if ks := trlKeys(r); strings.Join(ks, ",") != "messages" {
			t.Fatalf("SFT row keys %v: TRL's language-modelling layout is {messages}", ks)
		}
		msgs := messages(t, r, "messages")
		last := msgs[len(msgs)-1]
		if last["role"] != "assistant" || msgs[len(msgs)-2]["role"] != "user" {
			t.Fatalf("roles %v", msgs)
		}
		if ex := extract.FromCompletion(last["content"].(string), "stop"); ex.SQL == "" {
			t.Fatalf("the answer does not read back as SQL: %q", last["content"])
		}
		if heldOut[r["task_id"].(string)] {
			t.Fatalf("held-out task %s written", r["task_id"])
		}
		reasons[r["reason"].(string)]++
	}
	if reasons[curate.ReasonFailed] == 0 || reasons[curate.ReasonReplay] == 0 || m.ByReason[curate.ReasonFailed] != reasons[curate.ReasonFailed] {
		t.Errorf("reasons %v, manifest %v", reasons, m.ByReason)
	}
	if sel, _ := json.Marshal(m.Selection); !strings.Contains(string(sel), `"holdout_skipped":20`) {
		t.Errorf("selection %s: the 20 held-out tasks must be counted as skipped", sel)
	}

	dpo := filepath.Join(dir, "dpo.jsonl")
	if code, _, errOut := run(t, "curate", "dpo", "--run", runDir, "--out", dpo); code != 0 {
		t.Fatalf("curate dpo: %d %s", code, errOut)
	}
	pairs := readRows(t, dpo)
	if len(pairs) == 0 {
		t.Fatal("no pairs")
	}
	for _, r := range pairs {
		if ks := trlKeys(r); strings.Join(ks, ",") != "prompt,chosen,rejected" {
			t.Fatalf("DPO row keys %v: TRL's preference layout is {prompt, chosen, rejected}", ks)
		}
		p := messages(t, r, "prompt")
		if p[len(p)-1]["role"] != "user" {
			t.Fatalf("prompt ends with %v", p[len(p)-1]["role"])
		}
		c, j := messages(t, r, "chosen"), messages(t, r, "rejected")
		if len(c) != 1 || len(j) != 1 || c[0]["role"] != "assistant" || j[0]["role"] != "assistant" {
			t.Fatalf("chosen %v rejected %v", c, j)
		}
		cs := extract.FromCompletion(c[0]["content"].(string), "stop").SQL
		rs := extract.FromCompletion(j[0]["content"].(string), "stop").SQL
		if rs == "" || curate.NormalizeSQL(cs) == curate.NormalizeSQL(rs) {
			t.Fatalf("sides %q / %q", cs, rs)
		}
		if heldOut[r["task_id"].(string)] {
			t.Fatalf("held-out task %s in a pair", r["task_id"])
		}
	}
	var dm curate.Manifest
	b, err := os.ReadFile(curate.ManifestPath(dpo))
	if err != nil || json.Unmarshal(b, &dm) != nil || dm.Rows != len(pairs) || dm.Style == nil || len(dm.Runs) != 1 || dm.Runs[0].SamplesSHA256 == "" {
		t.Fatalf("dpo manifest %v %s", err, b)
	}

	// Refused without --replace; replaced with it.
	if code, _, errOut := run(t, "curate", "dpo", "--run", runDir, "--out", dpo); code != 1 || !strings.Contains(errOut, "--replace") {
		t.Errorf("existing output: exit %d, %s", code, errOut)
	}
	if code, _, errOut := run(t, "curate", "dpo", "--run", runDir, "--out", dpo, "--replace", "--format", "openai"); code != 0 {
		t.Errorf("--replace: %d %s", code, errOut)
	}
	if r := readRows(t, dpo)[0]; r["input"] == nil || r["preferred_output"] == nil || r["non_preferred_output"] == nil {
		t.Errorf("openai preference row %v", r)
	}
	ledger, err := os.ReadFile(filepath.Join(dir, "runs", "ledger.jsonl"))
	if err != nil || strings.Count(string(ledger), `"kind":"curate"`) != 3 {
		t.Errorf("ledger: %v\n%s", err, ledger)
	}
}

// curate sft --agent on a real agent run of the offline baseline: one
// multi-turn example per task with a correct episode, in the layout TRL's
// assistant_only_loss trains on (trl v1.9.0 trl/trainer/sft_config.py:273,
// conversational datasets only, sft_trainer.py:1220): "messages" with the
// assistant's tool calls (function name and arguments as an object) and
// the tool results, and "tools" as a JSON string, which sft_trainer.py:1458
// reads with json.loads. The last assistant turn submits the episode's SQL.
func TestCurateAgentEpisodes(t *testing.T) {
	dir := t.TempDir()
	runDir := filepath.Join(dir, "runs", "agent")
	if code, _, errOut := run(t, "eval", "--tasks", "shop", "--split", "holdout", "--policy", "baseline", "--agent", "--k", "1", "--seed", "1", "--out", runDir); code != 0 {
		t.Fatalf("eval --agent: %d %s", code, errOut)
	}
	// The held-out split is what the run holds, so nothing may be written.
	out := filepath.Join(dir, "ep.jsonl")
	if code, _, errOut := run(t, "curate", "sft", "--run", runDir, "--agent", "--out", out); code != 1 || !strings.Contains(errOut, "no example") {
		t.Fatalf("a run of held-out tasks gave exit %d: %s", code, errOut)
	}
	runDir = filepath.Join(dir, "runs", "agent-train")
	all, _ := shopdb.Tasks()
	var tasks []sqlgym.Task
	for _, tk := range all {
		if tk.Split != sqlgym.SplitHoldout && len(tasks) < 150 {
			tasks = append(tasks, tk)
		}
	}
	var tb strings.Builder
	if err := sqlgym.WriteTasks(&tb, tasks); err != nil {
		t.Fatal(err)
	}
	tf := filepath.Join(dir, "train.jsonl")
	os.WriteFile(tf, []byte(tb.String()), 0o644)
	if code, _, errOut := run(t, "eval", "--tasks", tf, "--split", "train", "--policy", "baseline", "--agent", "--k", "1", "--seed", "1", "--out", runDir); code != 0 {
		t.Fatalf("eval --agent: %d %s", code, errOut)
	}
	code, stdout, errOut := run(t, "curate", "sft", "--run", runDir, "--agent", "--out", out, "--json")
	if code != 0 {
		t.Fatalf("curate --agent: %d %s", code, errOut)
	}
	var m curate.Manifest
	json.Unmarshal([]byte(stdout), &m)
	rows := readRows(t, out)
	if len(rows) == 0 || m.Rows != len(rows) || m.ByReason[curate.ReasonEpisode] != len(rows) || m.PromptsDiffer != 0 {
		t.Fatalf("%d rows, manifest %+v", len(rows), m)
	}
	for _, r := range rows {
		var tools []map[string]any
		if s, ok := r["tools"].(string); !ok || json.Unmarshal([]byte(s), &tools) != nil || len(tools) != 4 {
			t.Fatalf("tools %v", r["tools"])
		}
		msgs := messages(t, r, "messages")
		sawTool, submitted := false, ""
		for _, msg := range msgs {
			switch msg["role"] {
			case "tool":
				sawTool = true
			case "assistant":
				for _, c := range asList(msg["tool_calls"]) {
					fn := c.(map[string]any)["function"].(map[string]any)
					args, ok := fn["arguments"].(map[string]any)
					if !ok {
						t.Fatalf("arguments are not an object: %v", fn)
					}
					if fn["name"] == "submit" {
						submitted, _ = args["sql"].(string)
					}
				}
			}
		}
		if !sawTool || submitted == "" || msgs[0]["role"] != "system" || msgs[1]["role"] != "user" {
			t.Fatalf("episode %v", msgs)
		}
	}
}

func asList(v any) []any {
	l, _ := v.([]any)
	return l
}

func TestCurateHelpAndBadInput(t *testing.T) {
	for _, c := range []string{"sft", "dpo"} {
		if code, out, _ := run(t, "curate", c, "--help"); code != cmdkit.ExitOK || !strings.Contains(out, "Examples:") {
			t.Errorf("curate %s --help: exit %d\n%s", c, code, out)
		}
	}
	dir := t.TempDir()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"curate", "sft", "--run", dir, "--out", filepath.Join(dir, "x.jsonl")}, "eval --out"},
		{[]string{"curate", "dpo", "--run", dir, "--out", filepath.Join(dir, "x.jsonl"), "--format", "verl"}, "trl or openai"},
		{[]string{"curate", "sft", "--run", dir, "--out", filepath.Join(dir, "x.jsonl"), "--source", "teacher"}, "gold, self or both"},
	} {
		if code, _, errOut := run(t, c.args...); code == 0 || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d, %s (want a hint naming %q)", c.args, code, errOut, c.want)
		}
	}
}
