package curate

import (
	"context"
	"fmt"
	"time"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/dataset"
	"github.com/sqlgym/sqlgym/model"
	"github.com/sqlgym/sqlgym/prompt"
	"github.com/sqlgym/sqlgym/verify"
	"github.com/sqlgym/sqlgym/verify/compare"
)

// Databases is what Build needs of the databases: engines to render the
// schema and the verifier's interface. *catalog.Catalog implements it.
type Databases interface {
	dataset.Engines
	verify.Databases
}

// Env is what building a dataset uses besides the runs.
type Env struct {
	DBs Databases
	// Template renders the prompts (eval's default when nil); for --agent,
	// the agent protocol's opening template.
	Template *prompt.Template
	// Mode judges the targets again (the runs' mode when empty).
	Mode compare.Mode
	// GitCommit is recorded in the manifest.
	GitCommit string
	// Tools are offered in agent examples (the tools protocol's four).
	Tools []model.Tool
}

// Output says where and how to write.
type Output struct {
	Path    string
	Format  string
	Replace bool
}

// ManifestPath is where a dataset's manifest goes: beside it.
func ManifestPath(out string) string { return out + ".manifest.json" }

func (e *Env) template() *prompt.Template {
	if e.Template == nil {
		return prompt.Default()
	}
	return e.Template
}

// judging returns how the targets are judged again: Env.Mode when set,
// else as the first run was judged, its order policy and variants included
// (the manifest holds verify.Config.ModeLabel, "multiset variants" for a
// run scored with --variants).
func (e *Env) judging(runs []*Run) (verify.Config, error) {
	if e.Mode != "" {
		m, err := compare.ParseMode(string(e.Mode))
		return verify.Config{Mode: m}, err
	}
	if len(runs) == 0 {
		return verify.Config{Mode: compare.Multiset}, nil
	}
	return verify.ParseModeLabel(runs[0].Manifest.Mode)
}

// check is one query to execute again before it is written: it must be
// correct (a target, a chosen side) or must not be (a rejected side).
type check struct {
	task    string
	sql     string
	correct bool
}

// recheck runs every check through the verifier under the runs' mode and
// reports which passed. An infrastructure failure fails the whole build:
// a query that could not be checked is neither written nor dropped as
// wrong.
func recheck(ctx context.Context, env *Env, runs []*Run, tasks []sqlgym.Task, checks []check) ([]bool, error) {
	cfg, err := env.judging(runs)
	if err != nil {
		return nil, err
	}
	v := verify.New(env.DBs, tasks, cfg)
	answers := make([]verify.Answer, len(checks))
	for i, c := range checks {
		answers[i] = verify.Answer{TaskID: c.task, Sample: i, SQL: c.sql, Rerun: true}
	}
	res := v.VerifyBatch(ctx, answers)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	ok := make([]bool, len(checks))
	for i, r := range res {
		if r.Outcome == sqlgym.OutcomeInfraError {
			return nil, fmt.Errorf("checking task %s again: %s", checks[i].task, r.Detail)
		}
		ok[i] = (r.Outcome == sqlgym.OutcomeCorrect) == checks[i].correct && r.Outcome != sqlgym.OutcomeGoldError
	}
	return ok, nil
}

// prompts renders each task's prompt, by id.
func prompts(ctx context.Context, env *Env, tasks []sqlgym.Task) (map[string]dataset.Example, error) {
	exs, err := dataset.RenderSchema(ctx, env.DBs, env.template(), nil, tasks)
	if err != nil {
		return nil, err
	}
	out := make(map[string]dataset.Example, len(exs))
	for _, ex := range exs {
		out[ex.Task.ID] = ex
	}
	return out, nil
}

// promptAudit counts the tasks whose rendered prompt is the one the
// measuring runs' samples saw (same hash) and those that differ (another
// template or schema, or a hint run).
func promptAudit(runs []*Run, exs map[string]dataset.Example) (same, differ int) {
	seen := map[string]string{}
	for _, r := range runs {
		if r.Hinted() {
			continue
		}
		for _, s := range r.Samples {
			if _, ok := seen[s.TaskID]; !ok && s.PromptHash != "" {
				seen[s.TaskID] = s.PromptHash
			}
		}
	}
	for id, ex := range exs {
		if h, ok := seen[id]; ok {
			if h == ex.PromptHash {
				same++
			} else {
				differ++
			}
		}
	}
	return same, differ
}

// Manifest records what a dataset was made from and what it holds.
type Manifest struct {
	Kind      string    `json:"kind"` // "sft" or "dpo"
	Format    string    `json:"format"`
	Out       string    `json:"out"`
	Created   time.Time `json:"created"`
	GitCommit string    `json:"git_commit,omitempty"`
	Runs      []RunRef  `json:"runs"`
	Settings  any       `json:"settings"`
	Mode      string    `json:"mode"`
	// PromptTemplateHash identifies the template the prompts were
	// rendered with; PromptsAsRun and PromptsDiffer count tasks whose
	// rendered prompt is (or is not) the one the measuring runs sent.
	PromptTemplateHash string         `json:"prompt_template_hash"`
	PromptsAsRun       int            `json:"prompts_as_run"`
	PromptsDiffer      int            `json:"prompts_differ"`
	Rows               int            `json:"rows"`
	Tasks              int            `json:"tasks"`
	BySource           map[string]int `json:"by_source"`
	ByReason           map[string]int `json:"by_reason,omitempty"`
	ByClass            map[string]int `json:"by_class"`
	// Checked counts the queries executed again before writing and
	// CheckFailed those that no longer passed (left out).
	Checked     int `json:"checked"`
	CheckFailed int `json:"check_failed"`
	Selection   any `json:"selection"`
	// Weak counts the written tasks a screen marked weak: their database
	// cannot tell the gold from a near miss.
	Weak  int         `json:"weak"`
	Style *StyleAudit `json:"style,omitempty"`
}

// RunRef pins a source run.
type RunRef struct {
	Dir            string `json:"dir"`
	ManifestSHA256 string `json:"manifest_sha256"`
	SamplesSHA256  string `json:"samples_sha256"`
	ConfigHash     string `json:"config_hash"`
	Model          string `json:"model,omitempty"`
	Policy         string `json:"policy,omitempty"`
	Hint           string `json:"hint,omitempty"`
}

func newManifest(kind string, env *Env, runs []*Run, out Output, settings any) *Manifest {
	m := &Manifest{Kind: kind, Format: out.Format, Out: out.Path, Created: time.Now().UTC(), GitCommit: env.GitCommit,
		Settings: settings, PromptTemplateHash: env.template().Hash(),
		BySource: map[string]int{}, ByClass: map[string]int{}}
	if cfg, err := env.judging(runs); err == nil {
		m.Mode = cfg.ModeLabel()
	}
	for _, r := range runs {
		m.Runs = append(m.Runs, RunRef{Dir: r.Dir, ManifestSHA256: r.ManifestSHA256, SamplesSHA256: r.SamplesSHA256,
			ConfigHash: r.Manifest.ConfigHash, Model: r.Manifest.Model, Policy: r.Manifest.Policy, Hint: r.Manifest.Hint})
	}
	return m
}

// tasksOf lists the distinct tasks of the stats at idx, in first-seen order.
func tasksOf(stats []TaskStats, idx []int) []sqlgym.Task {
	seen := map[int]bool{}
	var out []sqlgym.Task
	for _, i := range idx {
		if !seen[i] {
			seen[i] = true
			out = append(out, stats[i].Task)
		}
	}
	return out
}

// errNothing is returned when no row survives: a dataset of nothing is a
// failed run of the command, never a success.
func errNothing(kind string, sel any) error {
	return sqlgym.Userf("check the runs: curate needs scored samples of train tasks (see the selection counts in --json)",
		"curate %s: no example to write (selection: %+v)", kind, sel)
}

// begin checks the output before any work and gathers the statistics and
// the manifest both builds start from.
func begin(kind string, env *Env, runs []*Run, tasks []sqlgym.Task, settings any, out Output) ([]TaskStats, *Manifest, error) {
	if err := refuseExisting(out); err != nil {
		return nil, nil, err
	}
	return Collect(tasks, RunSamplesOf(runs)), newManifest(kind, env, runs, out, settings), nil
}
