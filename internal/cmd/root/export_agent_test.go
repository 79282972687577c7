package root

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/sqlgym/sqlgym/dataset"

	"github.com/sqlgym/sqlgym/internal/cmd/cmdkit"
	datacmd "github.com/sqlgym/sqlgym/internal/cmd/data"
)

// export --agent through the command: each format's rows, and the
// combinations that cannot work refused with the fix.
func TestExportAgentCommand(t *testing.T) {
	tasksPath, _ := trainingRun(t)
	dir := t.TempDir()

	pq := filepath.Join(dir, "agent.parquet")
	code, stdout, stderr := run(t, "export", "--tasks", tasksPath, "--agent", "--format", "verl", "--out", pq, "--json")
	if code != cmdkit.ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var res datacmd.ExportResult
	if err := json.Unmarshal([]byte(stdout), &res); err != nil || res.Protocol != "tools" || res.Examples != 3 {
		t.Fatalf("%s %v", stdout, err)
	}
	rows, err := parquet.ReadFile[dataset.VerlAgentRow](pq)
	if err != nil {
		t.Fatal(err)
	}
	if rows[0].AgentName != "sqlgym_agent" || rows[0].ExtraInfo.ToolsKwargs.Sqlgym.CreateKwargs.TaskID != rows[0].ExtraInfo.TaskID ||
		!strings.Contains(rows[0].Prompt[0].Content, "submit") {
		t.Fatalf("verl agent row %+v", rows[0])
	}

	sky := filepath.Join(dir, "agent.skyrl.jsonl")
	if code, _, stderr := run(t, "export", "--tasks", tasksPath, "--agent", "--protocol", "text", "--format", "skyrl", "--out", sky); code != cmdkit.ExitOK {
		t.Fatalf("skyrl: exit %d: %s", code, stderr)
	}
	b, _ := os.ReadFile(sky)
	var srow dataset.SkyRLRow
	if err := json.Unmarshal([]byte(strings.SplitN(string(b), "\n", 2)[0]), &srow); err != nil || srow.EnvClass != "sqlgym" || srow.Protocol != "text" {
		t.Fatalf("skyrl row %+v %v", srow.TaskID, err)
	}

	ng := filepath.Join(dir, "shop.nemo-gym.jsonl")
	if code, _, stderr := run(t, "export", "--tasks", tasksPath, "--format", "nemo-gym", "--out", ng); code != cmdkit.ExitOK {
		t.Fatalf("nemo-gym: exit %d: %s", code, stderr)
	}
	b, _ = os.ReadFile(ng)
	var nrow dataset.NemoGymRow
	if err := json.Unmarshal([]byte(strings.SplitN(string(b), "\n", 2)[0]), &nrow); err != nil || len(nrow.ResponsesCreateParams.Input) != 2 ||
		!strings.Contains(nrow.ResponsesCreateParams.Input[1].Content, "in a ```sql code block") || nrow.TaskID != "a" {
		t.Fatalf("nemo-gym row %+v %v", nrow.TaskID, err)
	}

	// The agent-mode NeMo-Gym row: the episode's opening as input, the
	// episode's tools in the Responses-API shape, and "protocol", which
	// tells sqlgym serve's /seed_session to open an episode.
	ang := filepath.Join(dir, "agent.nemo-gym.jsonl")
	if code, _, stderr := run(t, "export", "--tasks", tasksPath, "--agent", "--protocol", "tools", "--format", "nemo-gym", "--out", ang); code != cmdkit.ExitOK {
		t.Fatalf("nemo-gym agent: exit %d: %s", code, stderr)
	}
	b, _ = os.ReadFile(ang)
	var arow map[string]any
	if err := json.Unmarshal([]byte(strings.SplitN(string(b), "\n", 2)[0]), &arow); err != nil {
		t.Fatal(err)
	}
	params := arow["responses_create_params"].(map[string]any)
	input, tools := params["input"].([]any), params["tools"].([]any)
	if len(input) != 2 || input[0].(map[string]any)["role"] != "system" || !strings.Contains(input[0].(map[string]any)["content"].(string), "submit") ||
		arow["protocol"] != "tools" || arow["task_id"] != "a" {
		t.Fatalf("nemo-gym agent row %v", arow)
	}
	var names []string
	for _, tl := range tools {
		m := tl.(map[string]any)
		if m["type"] != "function" || m["parameters"] == nil || m["function"] != nil {
			t.Fatalf("tool not in the Responses-API function shape: %v", m)
		}
		names = append(names, m["name"].(string))
	}
	if strings.Join(names, ",") != "list_tables,describe_table,run_sql,submit" {
		t.Fatalf("tools %v", names)
	}

	for _, bad := range []struct{ args, want string }{
		{"--format skyrl", "add --agent --protocol text"},
		{"--agent --format skyrl", "use --protocol text"},
		{"--agent --protocol json --format trl", "tools or text"},
		{"--agent --prompt-template x.tmpl --format trl", "drop --prompt-template"},
		{"--agent --protocol text --format nemo-gym", "use --protocol tools"},
	} {
		args := append([]string{"export", "--tasks", tasksPath, "--out", filepath.Join(dir, "x")}, strings.Fields(bad.args)...)
		code, _, stderr := run(t, args...)
		if code == cmdkit.ExitOK || !strings.Contains(stderr, bad.want) {
			t.Errorf("%s: exit %d, stderr %q lacks %q", bad.args, code, stderr, bad.want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "x")); err == nil {
		t.Error("a refused export wrote its file")
	}
}
