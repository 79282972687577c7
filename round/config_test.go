package round_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym/round"
)

func writeConfig(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "round.yaml")
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

const minimal = `tasks: tasks.jsonl
model: {base_url: "http://127.0.0.1:8000/v1", name: Qwen/Qwen3-4B}
train: {command: [python, train.py, --data, "{dataset}"]}
serve: {load_lora: true}
`

func TestConfigDefaultsAndPaths(t *testing.T) {
	p := writeConfig(t, minimal)
	c, err := round.Load(p)
	if err != nil {
		t.Fatal(err)
	}
	if c.Rollout.K != 8 || c.Band.MinTasks != 16 || c.Score.Replicates != 3 || c.Score.K != 1 || c.Export.Format != "trl" || c.Mode != "multiset" {
		t.Fatalf("defaults: %+v", c)
	}
	if want := filepath.Join(filepath.Dir(p), "rounds"); c.RoundsDir() != want {
		t.Fatalf("rounds dir %s, want %s (relative to the config)", c.RoundsDir(), want)
	}
}

func TestConfigErrorsNameTheKey(t *testing.T) {
	for _, tc := range []struct{ body, want string }{
		{minimal + "rollouts: {k: 4}\n", "rollouts"},                                      // misspelt key
		{strings.Replace(minimal, "tasks: tasks.jsonl\n", "", 1), "tasks: required"},       // missing
		{minimal + "rollout: {k: 1}\n", "rollout.k 1"},                                    // no band possible
		{strings.Replace(minimal, "{dataset}", "{datset}", 1), "unknown placeholder {datset}"},
		{strings.Replace(minimal, "serve: {load_lora: true}", "serve: {}", 1), "serve: set exactly one"},
		{minimal + "decide: {criterion: \"delta=>1\"}\n", "decide.criterion"},
		{minimal + "export: {format: csv}\n", `export.format "csv"`},
	} {
		_, err := round.Load(writeConfig(t, tc.body))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("config with %q: error %v, want it to name %q", tc.want, err, tc.want)
		}
	}
}
