package eval_test

import (
	"testing"

	"github.com/sqlgym/sqlgym/dataset"
	"github.com/sqlgym/sqlgym/eval"
	"github.com/sqlgym/sqlgym/link"
	"github.com/sqlgym/sqlgym/prompt"
	"github.com/sqlgym/sqlgym/rundir"
)

// Training text is scoring text: for the same task, on the full and on a
// linked schema, the export's prompt (its text and hash) is the one
// evaluation sent the model and recorded with the sample.
func TestExportPromptIsEvalPrompt(t *testing.T) {
	for _, c := range []struct {
		name string
		src  func() *link.Source
	}{
		{"full", func() *link.Source { return nil }},
		{"linked", func() *link.Source { return link.NewSource(link.ModeLinked, link.Options{}, 3) }},
	} {
		t.Run(c.name, func(t *testing.T) {
			out := t.TempDir() + "/run"
			cfg, p := linkingConfig(t, out, c.src())
			cfg.Template = prompt.Default()
			if _, err := eval.Run(t.Context(), cfg); err != nil {
				t.Fatal(err)
			}
			samples, err := rundir.ReadSamples(out)
			if err != nil || len(samples) != len(cfg.Tasks) {
				t.Fatalf("%d samples, %v", len(samples), err)
			}
			hashes := map[string]string{}
			for _, s := range samples {
				hashes[s.TaskID] = s.PromptHash
			}
			exs, err := dataset.RenderSchema(t.Context(), cfg.DBs.(dataset.Engines), prompt.Default(), c.src(), cfg.Tasks)
			if err != nil {
				t.Fatal(err)
			}
			for _, ex := range exs {
				user := ex.Prompt[len(ex.Prompt)-1].Content
				if user != p.prompts[ex.Task.ID] || ex.PromptHash != hashes[ex.Task.ID] || hashes[ex.Task.ID] == "" {
					t.Errorf("task %s: export prompt (hash %s)\n%s\nevaluation prompt (hash %s)\n%s",
						ex.Task.ID, ex.PromptHash, user, hashes[ex.Task.ID], p.prompts[ex.Task.ID])
				}
			}
		})
	}
}
