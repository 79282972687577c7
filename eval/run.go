package eval

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/agent"
	"github.com/sqlgym/sqlgym/internal/redact"
	"github.com/sqlgym/sqlgym/ledger"
	"github.com/sqlgym/sqlgym/model"
	"github.com/sqlgym/sqlgym/report"
	"github.com/sqlgym/sqlgym/rundir"
	"github.com/sqlgym/sqlgym/verify"
	"github.com/sqlgym/sqlgym/verify/compare"
)

// Result is what one invocation of Run did.
type Result struct {
	Dir      string
	Manifest rundir.Manifest
	// Summary is what summary.json holds (report.Summarize of every sample
	// in the folder).
	Summary rundir.Summary
	// Resumed says the folder held a run of this configuration already;
	// Present counts its samples that were kept as they were.
	Resumed bool
	Present int
	// Drawn counts samples sampled, judged and written by this invocation;
	// Rejudged the infra_error samples judged again (without resampling).
	Drawn    int
	Rejudged int
	// Missing counts samples that could not be drawn: the model server
	// failed past its retries (MissingInfra), refused the request
	// (MissingRefused) or the database's schema could not be loaded
	// (MissingDB). They were not written; a rerun draws them.
	Missing        int
	MissingInfra   int
	MissingRefused int
	MissingDB      int
	// FirstFailure is the first such failure's message.
	FirstFailure string
}

// Run evaluates cfg.Tasks into the run folder cfg.Out, continuing a run of
// the same configuration found there. It returns an error for a folder it
// may not use, a failure that would sink every sample (a wrong API key, an
// unknown model), or an interruption (the context ended); samples already
// written stay, and running again continues.
func Run(ctx context.Context, cfg Config) (*Result, error) {
	if err := cfg.withDefaults(); err != nil {
		return nil, err
	}
	v := verify.New(cfg.DBs, cfg.Tasks, cfg.Verify)
	vc := v.Config()
	digests, err := dbDigests(ctx, cfg.DBs, cfg.Tasks, cfg.PostgresSchema, vc.Variants || vc.Mode == compare.TestSuite)
	if err != nil {
		return nil, err
	}
	kind := cfg.PolicyKind
	if kind == "" && cfg.Policy != nil {
		kind = cfg.Policy.Name()
	} else if kind == "" {
		kind = cfg.Actor.Name()
	}
	m := rundir.Manifest{
		SqlgymVersion: cfg.Version, GitCommit: cfg.GitCommit,
		TasksFile: cfg.TasksFile, TasksHash: cfg.TasksHash, Split: cfg.Split, TaskCount: len(cfg.Tasks),
		DBDigests: digests, Policy: kind, Model: cfg.Model, BaseURL: redact.URL(cfg.BaseURL), ModelReplicas: redactAll(cfg.ModelReplicas), Decoding: cfg.Decoding,
		Mode: vc.ModeLabel(), Rewards: vc.Rewards.String(), PromptHash: cfg.Template.Hash(),
		Started: time.Now().UTC(),
	}
	// The manifest is shared with the run: a key passed in --extra or a
	// password in the base URL must not be in it (a copy: the model
	// client keeps the real ones).
	m.Decoding.Extra = redact.Map(cfg.Decoding.Extra)
	if cfg.Agent != nil {
		m.Agent = cfg.Agent.Settings()
	}
	m.Schema = cfg.Schema.Settings()
	m.Hint, m.RetryOf = cfg.Hint, cfg.RetryOf
	if m.Linking, err = linkingSummary(ctx, cfg); err != nil {
		return nil, err
	}
	m.ConfigHash = ConfigHash(&m)
	old, err := checkFolder(cfg.Out, &m)
	if err != nil {
		return nil, err
	}
	res := &Result{Dir: cfg.Out, Resumed: old != nil}
	if old != nil {
		m.Started = old.Started
	}
	if err := os.MkdirAll(cfg.Out, 0o755); err != nil {
		return nil, fmt.Errorf("create run folder: %w", err)
	}
	release, err := lock(cfg.Out)
	if err != nil {
		return nil, err
	}
	defer release()
	// The manifest goes first: a folder with samples always says what
	// they are, even after a crash.
	if err := rundir.WriteJSON(filepath.Join(cfg.Out, rundir.ManifestFile), &m); err != nil {
		return nil, err
	}
	app, existing, err := rundir.OpenAppender(cfg.Out)
	if err != nil {
		return nil, err
	}
	r := &runner{cfg: cfg, v: v, app: app, res: res, prompts: newPrompts(cfg.DBs, cfg.Template, cfg.Schema)}
	if cfg.Hint == HintShape {
		r.prompts.hint = func(ctx context.Context, t *sqlgym.Task) (string, error) { return shapeHint(ctx, v, t) }
	}
	if cfg.Agent != nil {
		if r.env, err = agent.NewEnv(v, cfg.DBs, cfg.Template, *cfg.Agent); err != nil {
			app.Close()
			return nil, err
		}
		r.env.SetSchema(cfg.Schema)
	}
	r.prog = newProgress(cfg.Progress, cfg.Out, len(cfg.Tasks)*cfg.Decoding.K)
	r.prog.retries = cfg.Retries
	rejudge, have := r.plan(existing)
	runErr := r.execute(ctx, rejudge, have)
	if err := app.Close(); err != nil && runErr == nil {
		runErr = fmt.Errorf("close %s: %w", rundir.SamplesFile, err)
	}
	res.Missing = res.MissingInfra + res.MissingRefused + res.MissingDB
	if runErr != nil {
		return res, runErr
	}
	if err := ctx.Err(); err != nil {
		return res, r.interrupted(err)
	}

	samples, err := rundir.ReadSamples(cfg.Out)
	if err != nil {
		return res, err
	}
	res.Summary = report.Summarize(cfg.Tasks, samples, cfg.Decoding.K)
	if err := rundir.WriteJSON(filepath.Join(cfg.Out, rundir.SummaryFile), res.Summary); err != nil {
		return res, err
	}
	ended := time.Now().UTC()
	m.Ended = &ended
	if err := rundir.WriteJSON(filepath.Join(cfg.Out, rundir.ManifestFile), &m); err != nil {
		return res, err
	}
	res.Manifest = m
	// An invocation that found the run complete changed nothing worth a
	// ledger line.
	if cfg.Ledger != "" && (!res.Resumed || res.Drawn > 0 || res.Rejudged > 0) {
		if err := ledger.Append(cfg.Ledger, ledgerEntry(cfg, &m, res)); err != nil {
			return res, fmt.Errorf("record the run in the ledger: %w", err)
		}
	}
	return res, nil
}

func (r *runner) interrupted(cause error) error {
	p := r.prog
	p.mu.Lock()
	done, total := p.done, p.total
	p.mu.Unlock()
	return &sqlgym.UserError{
		Msg:  fmt.Sprintf("eval interrupted with %d of %d samples in %s: %v", done, total, r.cfg.Out, cause),
		Hint: "run the same command again to continue where it stopped",
		Err:  cause,
	}
}

func ledgerEntry(cfg Config, m *rundir.Manifest, res *Result) ledger.Entry {
	h := map[string]float64{"tasks": float64(res.Summary.Tasks), "missing": float64(res.Summary.Missing)}
	for k, met := range res.Summary.Metrics {
		h[k], h[k+".lo"], h[k+".hi"] = met.Value, met.CI[0], met.CI[1]
	}
	dec := m.Decoding
	return ledger.Entry{
		Kind: ledger.KindEval, Command: cfg.Command, GitCommit: cfg.GitCommit,
		ConfigHash: m.ConfigHash, TasksHash: m.TasksHash, Split: m.Split, Decoding: &dec,
		Output: cfg.Out, Headline: h,
	}
}

// runner is one invocation's state.
type runner struct {
	cfg     Config
	v       *verify.Verifier
	app     *rundir.Appender
	res     *Result
	prompts *prompts
	prog    *progress
	// env plays episodes when the run is an agent's.
	env *agent.Env

	mu    sync.Mutex
	fatal error
}

// unit is one policy call: the samples of one task it draws.
type unit struct {
	task    *sqlgym.Task
	samples []int
}

// plan sorts the folder's samples into those kept and those to judge
// again (infra_error); have holds, per task, the sample indices present.
// The samples still to draw are the others, which units yields one unit at
// a time: nothing is allocated per sample up front, whatever k is.
func (r *runner) plan(existing []rundir.Sample) (rejudge []rundir.Sample, have map[string]map[int]bool) {
	k := r.cfg.Decoding.K
	have = make(map[string]map[int]bool, len(r.cfg.Tasks))
	for _, t := range r.cfg.Tasks {
		have[t.ID] = nil
	}
	for _, s := range existing {
		got, ok := have[s.TaskID]
		if !ok || s.Sample < 0 || s.Sample >= k || got[s.Sample] {
			continue
		}
		if s.Outcome == sqlgym.OutcomeInfraError && r.env != nil {
			// An episode the database failed during is played again:
			// its later turns never saw what they should have.
			continue
		}
		if got == nil {
			got = map[int]bool{}
			have[s.TaskID] = got
		}
		got[s.Sample] = true
		if s.Outcome == sqlgym.OutcomeInfraError {
			rejudge = append(rejudge, s)
			continue
		}
		r.res.Present++
		r.prog.count(s.Outcome)
	}
	return rejudge, have
}

// maxUnitSamples bounds the samples of one policy call: a call for more
// would hold them all at once.
const maxUnitSamples = 64

// units passes each unit still to draw to yield, in task order, until
// yield returns false.
func (r *runner) units(have map[string]map[int]bool, yield func(unit) bool) {
	// Episodes are drawn one by one anyway: one unit each spreads them
	// over the workers.
	seeded := r.cfg.Decoding.Seed != nil && r.cfg.Reseed != nil || r.env != nil
	size := maxUnitSamples
	if seeded {
		size = 1
	}
	for i := range r.cfg.Tasks {
		t := &r.cfg.Tasks[i]
		got := have[t.ID]
		var todo []int
		for j := 0; j < r.cfg.Decoding.K; j++ {
			if got[j] {
				continue
			}
			todo = append(todo, j)
			if len(todo) == size {
				if !yield(unit{task: t, samples: todo}) {
					return
				}
				todo = nil
			}
		}
		if len(todo) > 0 && !yield(unit{task: t, samples: todo}) {
			return
		}
	}
}

// execute judges the infra_error samples again, then draws the missing
// ones on Concurrency workers.
func (r *runner) execute(ctx context.Context, rejudge []rundir.Sample, have map[string]map[int]bool) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	r.prog.begin(r.cfg.ProgressEvery)
	defer r.prog.end()
	if err := r.rejudge(ctx, rejudge); err != nil {
		return err
	}
	work := make(chan unit)
	var wg sync.WaitGroup
	for range r.cfg.Concurrency {
		wg.Go(func() {
			for u := range work {
				if ctx.Err() != nil {
					continue
				}
				if err := r.draw(ctx, u); err != nil {
					r.setFatal(err)
					cancel()
				}
			}
		})
	}
	r.units(have, func(u unit) bool {
		select {
		case work <- u:
			return true
		case <-ctx.Done():
			return false
		}
	})
	close(work)
	wg.Wait()
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.fatal
}

func (r *runner) setFatal(err error) {
	r.mu.Lock()
	if r.fatal == nil {
		r.fatal = err
	}
	r.mu.Unlock()
}

// rejudgeChunk bounds a verification batch of judged-again samples.
const rejudgeChunk = 512

// rejudge verifies infra_error samples again from their kept completions.
func (r *runner) rejudge(ctx context.Context, samples []rundir.Sample) error {
	for lo := 0; lo < len(samples); lo += rejudgeChunk {
		batch := samples[lo:min(lo+rejudgeChunk, len(samples))]
		answers := make([]verify.Answer, len(batch))
		for i, s := range batch {
			answers[i] = verify.Answer{TaskID: s.TaskID, Sample: s.Sample, Completion: s.Completion, FinishReason: s.FinishReason}
		}
		results := r.v.VerifyBatch(ctx, answers)
		if ctx.Err() != nil {
			return nil
		}
		for i := range batch {
			s := batch[i]
			t, _ := r.v.Task(s.TaskID)
			s.Judged(results[i].Verdict, taskSQL(t))
			if err := r.app.Append(&s); err != nil {
				return err
			}
			r.prog.count(s.Outcome)
			r.mu.Lock()
			r.res.Rejudged++
			r.mu.Unlock()
		}
	}
	return nil
}

// draw samples one unit, judges the completions and appends them. It
// returns an error only for a failure that ends the run.
func (r *runner) draw(ctx context.Context, u unit) error {
	if r.env != nil {
		return r.drawEpisodes(ctx, u)
	}
	pr, err := r.prompts.render(ctx, u.task)
	if err != nil {
		if ctx.Err() != nil {
			return nil
		}
		if sqlgym.IsInfra(err) {
			r.lose(u, &r.res.MissingDB, err)
			return nil
		}
		return err
	}
	pol := r.cfg.Policy
	if r.cfg.Decoding.Seed != nil && r.cfg.Reseed != nil {
		pol = r.cfg.Reseed(*r.cfg.Decoding.Seed + u.samples[0])
	}
	t0 := time.Now()
	comps, err := complete(ctx, pol, r.cfg.Positional, pr, u.samples)
	if err != nil {
		return r.policyFailed(ctx, u, err)
	}
	wall := time.Since(t0)
	if _, at := pol.(atPolicy); r.cfg.Positional && !at {
		ask := u.samples[len(u.samples)-1] + 1
		if len(comps) < ask {
			r.lose(u, &r.res.MissingRefused, fmt.Errorf("task %s: the policy returned %d of %d completions", u.task.ID, len(comps), ask))
			return nil
		}
		picked := make([]model.Completion, len(u.samples))
		for i, j := range u.samples {
			picked[i] = comps[j]
		}
		comps = picked
	}
	if len(comps) < len(u.samples) {
		r.lose(unit{task: u.task, samples: u.samples[len(comps):]}, &r.res.MissingRefused,
			fmt.Errorf("task %s: the policy returned %d of %d completions", u.task.ID, len(comps), len(u.samples)))
	}
	n := min(len(comps), len(u.samples))
	answers := make([]verify.Answer, n)
	for i := range n {
		answers[i] = verify.Answer{TaskID: u.task.ID, Sample: u.samples[i], Completion: comps[i].Text, FinishReason: comps[i].FinishReason}
	}
	results := r.v.VerifyBatch(ctx, answers)
	if ctx.Err() != nil {
		// Verdicts cut short would read as database failures: write none.
		return nil
	}
	for i := range n {
		c := comps[i]
		lat := c.Latency
		if lat <= 0 {
			lat = wall
		}
		s := rundir.Sample{
			TaskID: u.task.ID, Sample: u.samples[i], DB: u.task.DB, PromptHash: pr.Hash,
			Completion: c.Text, Reasoning: c.Reasoning, FinishReason: c.FinishReason,
			LatencyMS: lat.Milliseconds(), PromptTokens: c.PromptTokens, CompletionTokens: c.CompletionTokens,
		}
		s.Judged(results[i].Verdict, taskSQL(u.task))
		if err := r.app.Append(&s); err != nil {
			return err
		}
		r.prog.count(s.Outcome)
		r.mu.Lock()
		r.res.Drawn++
		r.mu.Unlock()
	}
	return nil
}

// atPolicy is a positional policy that draws just the sample indices
// asked (the baseline), not every one up to the highest.
type atPolicy interface {
	CompleteAt(ctx context.Context, pr model.Prompt, samples []int) ([]model.Completion, error)
}

// complete asks pol for the unit's samples: by index from an atPolicy,
// all up to the highest from another positional policy, else as many as
// the unit has.
func complete(ctx context.Context, pol model.Policy, positional bool, pr model.Prompt, samples []int) ([]model.Completion, error) {
	switch at, ok := pol.(atPolicy); {
	case positional && ok:
		return at.CompleteAt(ctx, pr, samples)
	case positional:
		return pol.Complete(ctx, pr, samples[len(samples)-1]+1)
	}
	return pol.Complete(ctx, pr, len(samples))
}

// policyFailed files a policy's error: a cancelled run ends quietly, a
// refusal every request would meet stops the run, and anything else leaves
// the unit's samples missing, never scored as the model's mistake.
func (r *runner) policyFailed(ctx context.Context, u unit, err error) error {
	switch {
	case ctx.Err() != nil:
		return nil
	case errors.Is(err, model.ErrServerGone):
		// The breaker's error already says to run again.
		return err
	case isFatal(err):
		return fmt.Errorf("task %s: %w", u.task.ID, err)
	case isInfraModel(err):
		r.lose(u, &r.res.MissingInfra, err)
	default:
		r.lose(u, &r.res.MissingRefused, err)
	}
	return nil
}

func (r *runner) lose(u unit, counter *int, err error) {
	r.mu.Lock()
	*counter += len(u.samples)
	if r.res.FirstFailure == "" {
		r.res.FirstFailure = err.Error()
	}
	r.mu.Unlock()
	r.prog.lose(len(u.samples))
}

// judged copies a verdict into a sample. A sample that is not correct
// keeps the gold it was judged against (the task's, when the verifier
// named none) and, when the queries ran, the first rows of each.
// redactAll is redact.URL of every URL.
func redactAll(urls []string) []string {
	if urls == nil {
		return nil
	}
	out := make([]string, len(urls))
	for i, u := range urls {
		out[i] = redact.URL(u)
	}
	return out
}

// taskSQL is the task's gold, a failed sample's gold when the verifier
// names none; "" without a task.
func taskSQL(t *sqlgym.Task) string {
	if t == nil {
		return ""
	}
	return t.SQL
}
