package round

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/internal/jsonl"
	"github.com/sqlgym/sqlgym/model"
	"github.com/sqlgym/sqlgym/stats"
)

// Runner runs one round.
type Runner struct {
	Cfg *Config
	// Commands runs the sqlgym commands of the steps (cli.RoundCommands).
	Commands Commands
	// Trainer runs the trainer's (or a server's) command line; the
	// default is os/exec (see execCommand).
	Exec func(ctx context.Context, argv []string, env []string, log io.Writer) error
	// Start starts a long-running server command and returns a function
	// that stops it (serve.command); the default is os/exec.
	Start func(ctx context.Context, argv []string, env []string, log io.Writer) (stop func(), err error)
	// Model lists the served models and loads runtime LoRA adapters
	// (vLLM's POST /load_lora_adapter).
	Model *model.Client
	// Progress gets one line per step.
	Progress io.Writer
	// DryRun prints what each step would run and runs nothing.
	DryRun bool

	// crash, set by tests, is asked after each step's work and before
	// its marker is written: an error there is a kill at that point.
	crash func(round int, step string) error
}

// StoppedError is a round that ended before training: its band was too
// small. Running again repeats the same rollout, so it is an error with a
// hint rather than a silent success.
type StoppedError struct{ Decision *Decision }

func (e *StoppedError) Error() string {
	return fmt.Sprintf("round %d stopped: %s", e.Decision.Round, e.Decision.Stopped)
}

// Next finds the round to run: the first without a decision, or the one
// after the last decided round. It returns the checkpoint the round
// starts from.
func Next(root string, base string) (n int, start Checkpoint, last *Decision, err error) {
	rounds, err := listRounds(root)
	if err != nil {
		return 0, Checkpoint{}, nil, err
	}
	start = Checkpoint{Name: base}
	for _, r := range rounds {
		l := Layout{root, r}
		// The decide step's marker, not decision.json, says a round is
		// over: a kill between the two runs decide again.
		if _, err := os.Stat(l.marker(StepDecide)); errors.Is(err, os.ErrNotExist) {
			return r, start, last, nil
		}
		d, err := readDecision(l.Decision())
		if err != nil {
			return 0, Checkpoint{}, nil, err
		}
		start, last = d.Best, d
	}
	if len(rounds) == 0 {
		return 1, start, nil, nil
	}
	return rounds[len(rounds)-1] + 1, start, last, nil
}

func listRounds(root string) ([]int, error) {
	ents, err := os.ReadDir(root)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []int
	for _, e := range ents {
		if n, err := strconv.Atoi(e.Name()); err == nil && e.IsDir() && len(e.Name()) == 3 && n > 0 {
			out = append(out, n)
		}
	}
	sort.Ints(out)
	return out, nil
}

// Run runs (or resumes) one round and returns its decision.
func (r *Runner) Run(ctx context.Context) (*Decision, error) {
	c := r.Cfg
	root := c.RoundsDir()
	n, start, last, err := Next(root, c.Model.Name)
	if err != nil {
		return nil, err
	}
	if last != nil && last.Stopped != "" && last.Round == n-1 {
		return nil, sqlgym.Userf("the same model would give the same band: raise rollout.k or lower band.min_tasks in the config, then remove "+Layout{root, last.Round}.Dir()+" to run that round again",
			"round %d stopped: %s", last.Round, last.Stopped)
	}
	l := Layout{Root: root, N: n}
	if !r.DryRun {
		if err := os.MkdirAll(filepath.Join(l.Dir(), ".steps"), 0o755); err != nil {
			return nil, err
		}
		// One round process at a time: two would append to the same
		// runs and race on the markers.
		lock, err := jsonl.Acquire(filepath.Join(root, ".round.lock"), false)
		if err != nil {
			return nil, sqlgym.Userf("wait for the other 'sqlgym round' to finish", "%w", err)
		}
		defer lock.Release()
	}
	st := &roundState{r: r, l: l, start: start, cand: Checkpoint{Name: LoRAName(n), Round: n, Adapter: l.Adapter()}}
	// A server the round started stops with the round, on every path
	// (a failed step, Ctrl-C) and not only at its end.
	defer func() {
		if st.stopServer != nil {
			st.stopServer()
		}
	}()
	for _, step := range Steps {
		if st.done(step) {
			r.progressf("round %d: %s done", n, step)
			continue
		}
		r.progressf("round %d: %s", n, step)
		stop, err := st.run(ctx, step)
		if err != nil {
			return nil, fmt.Errorf("round %d, step %s: %w", n, step, err)
		}
		if r.DryRun {
			continue
		}
		if r.crash != nil {
			if err := r.crash(n, step); err != nil {
				return nil, err
			}
		}
		if err := st.mark(step); err != nil {
			return nil, err
		}
		if stop {
			break
		}
	}
	if r.DryRun {
		return nil, nil
	}
	d, err := readDecision(l.Decision())
	if err != nil {
		return nil, err
	}
	if d.Stopped != "" {
		return d, &StoppedError{d}
	}
	return d, nil
}

func (r *Runner) progressf(format string, args ...any) {
	if r.Progress != nil {
		fmt.Fprintf(r.Progress, format+"\n", args...)
	}
}

// roundState is one round in progress.
type roundState struct {
	r          *Runner
	l          Layout
	start      Checkpoint
	cand       Checkpoint
	band       int
	stopServer func()
}

func (s *roundState) done(step string) bool {
	if s.r.DryRun {
		_, err := os.Stat(s.l.marker(step))
		return err == nil
	}
	// The serve step is redone until the round is scored: a server
	// started by serve.command does not outlive the process that started
	// it, and a vLLM restarted since has forgotten its runtime adapters
	// (loading one the server lists is skipped, so this costs one GET).
	if step == StepServe {
		_, err := os.Stat(s.l.marker(StepScore))
		return err == nil
	}
	_, err := os.Stat(s.l.marker(step))
	return err == nil
}

func (s *roundState) mark(step string) error {
	return writeJSONFile(s.l.marker(step), map[string]any{"step": step, "done": time.Now().UTC()})
}

// dry prints step's command line in a dry run and says whether it is one.
func (s *roundState) dry(step any) bool {
	if s.r.DryRun {
		fmt.Fprintf(s.r.Progress, "  %s\n", shellJoin(s.r.Commands.Line(step)))
	}
	return s.r.DryRun
}

func (s *roundState) eval(ctx context.Context, e EvalStep) error {
	if s.dry(e) {
		return nil
	}
	return s.r.Commands.Eval(ctx, e)
}

func (s *roundState) run(ctx context.Context, step string) (stop bool, err error) {
	c := s.r.Cfg
	switch step {
	case StepRollout:
		return false, s.eval(ctx, s.evalStep("train", s.start.Name, c.Rollout.K, c.Model.Seed, s.l.Rollout()))
	case StepBand:
		return s.runBand(ctx)
	case StepExport:
		if s.band == 0 && !s.r.DryRun {
			if s.band, err = countLines(s.l.Band()); err != nil {
				return false, err
			}
		}
		x := ExportStep{Tasks: c.path(c.Tasks), Band: s.l.Band(), Format: c.Export.Format, Out: s.l.Dataset(c.Export.Format), DBs: c.DBs()}
		if s.dry(x) {
			return false, nil
		}
		return false, s.r.Commands.Export(ctx, x)
	case StepTrain:
		return false, s.train(ctx)
	case StepServe:
		return false, s.serve(ctx)
	case StepScore:
		return false, s.score(ctx)
	case StepDecide:
		return false, s.decide(ctx)
	}
	return false, fmt.Errorf("unknown step %q", step)
}

// evalStep is one run through the model server.
func (s *roundState) evalStep(split, model string, k, seed int, out string) EvalStep {
	c := s.r.Cfg
	return EvalStep{Tasks: c.path(c.Tasks), Split: split, BaseURL: c.Model.BaseURL, Model: model,
		APIKeyEnv: c.Model.APIKeyEnv, Extra: c.Model.Extra, Mode: c.Mode, K: k, Seed: seed,
		Temperature: c.Model.Temperature, MaxTokens: c.Model.MaxTokens, Concurrency: c.Model.Concurrency,
		Out: out, DBs: c.DBs()}
}

// DBArgs are the --db, --db-dir and --pg-schema flags every step's
// command gets. A db: entry's file path (NAME=sqlite:PATH, duckdb:PATH) is
// resolved against the config file's folder like every other path, so the
// round runs the same from any working folder.
func (c *Config) DBArgs() []string { return c.DBs().Args() }

func (s *roundState) runBand(ctx context.Context) (bool, error) {
	c := s.r.Cfg
	b := BandStep{Run: s.l.Rollout(), Tasks: c.path(c.Tasks), Out: s.l.Band()}
	if s.dry(b) {
		return false, nil
	}
	res, err := s.r.Commands.Band(ctx, b)
	if err != nil {
		return false, err
	}
	s.band = res.Band
	if res.Band >= c.Band.MinTasks {
		return false, nil
	}
	d := &Decision{Round: s.l.N, Start: s.start, Band: res.Band, Best: s.start, Decided: time.Now().UTC(),
		Stopped: fmt.Sprintf("the band has %d of %d train tasks, fewer than band.min_tasks %d: too few to train on", res.Band, res.Tasks, c.Band.MinTasks),
		Rule:    s.rule()}
	if err := writeJSONFile(s.l.Decision(), d); err != nil {
		return false, err
	}
	// The round is decided: the remaining steps have nothing to do.
	for _, step := range Steps[2:] {
		if err := s.mark(step); err != nil {
			return false, err
		}
	}
	return true, nil
}

// vals are the placeholders' values for this round.
func (s *roundState) vals(rewardURL string) map[string]string {
	c := s.r.Cfg
	abs := func(p string) string {
		a, err := filepath.Abs(p)
		if err != nil {
			return p
		}
		return a
	}
	return map[string]string{
		"dataset": abs(s.l.Dataset(c.Export.Format)), "reward_url": rewardURL,
		"adapter": abs(s.l.Adapter()), "init_adapter": s.start.Adapter, "model": s.start.Name,
		"base_model": c.Model.Name, "round": strconv.Itoa(s.l.N), "round_dir": abs(s.l.Dir()),
		"tasks": c.path(c.Tasks), "lora_name": s.cand.Name, "base_url": c.Model.BaseURL,
	}
}

func (s *roundState) rule() string {
	r := "the candidate becomes the best when the 95% paired interval of its held-out pass@1 against the base is above zero"
	if s.r.Cfg.Decide.Criterion != "" {
		r += " and it meets " + s.r.Cfg.Decide.Criterion
	}
	return r + ", and, when the round started from a checkpoint, the interval against that checkpoint is above zero too"
}

func countLines(path string) (int, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	return bytes.Count(b, []byte("\n")), nil
}

func shellJoin(args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		if a == "" || strings.ContainsAny(a, " \t\"'$\\{}*?;&|<>()") {
			a = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
		q[i] = a
	}
	return strings.Join(q, " ")
}

// scores are the held-out run folders of a checkpoint.
func (s *roundState) scores(cp Checkpoint) []string {
	var dirs []string
	for rep := 1; rep <= s.r.Cfg.Score.Replicates; rep++ {
		if cp.IsBase() {
			dirs = append(dirs, BaseScore(s.l.Root, rep))
		} else {
			dirs = append(dirs, Layout{s.l.Root, cp.Round}.Score(rep))
		}
	}
	return dirs
}

// scoreSeed is replicate rep's seed: replicates draw different samples,
// and each side's replicate rep the same seeds as the other's.
func (s *roundState) scoreSeed(rep int) int { return s.r.Cfg.Model.Seed + 1_000_003*rep }

func (s *roundState) score(ctx context.Context) error {
	c := s.r.Cfg
	// The base goes through the same server and settings as every
	// checkpoint, once, and is reused by every later round.
	for rep, dir := range s.scores(Checkpoint{Name: c.Model.Name}) {
		marker := filepath.Join(filepath.Dir(dir), ".steps", filepath.Base(dir)+".done")
		if _, err := os.Stat(marker); err == nil {
			continue
		}
		if err := s.eval(ctx, s.evalStep("holdout", c.Model.Name, c.Score.K, s.scoreSeed(rep+1), dir)); err != nil {
			return err
		}
		if !s.r.DryRun {
			if err := writeJSONFile(marker, map[string]any{"done": time.Now().UTC()}); err != nil {
				return err
			}
		}
	}
	for rep, dir := range s.scores(s.cand) {
		if err := s.eval(ctx, s.evalStep("holdout", s.cand.Name, c.Score.K, s.scoreSeed(rep+1), dir)); err != nil {
			return err
		}
	}
	return nil
}

func (s *roundState) compare(ctx context.Context, base, treat Checkpoint) (*Verdict, error) {
	cs := CompareStep{Base: s.scores(base), Treat: s.scores(treat)}
	if s.dry(cs) {
		return nil, nil
	}
	cmp, err := s.r.Commands.Compare(ctx, cs)
	if err != nil {
		return nil, err
	}
	if len(cmp.Metrics) == 0 {
		return nil, fmt.Errorf("sqlgym compare of %v and %v gave no metrics", cs.Base, cs.Treat)
	}
	v := verdictOf(base.Name, cmp)
	if c := s.r.Cfg.Decide.Criterion; c != "" {
		crit, _ := stats.ParseCriterion(c)
		met := crit.Check(cmp.Pass1().PairedResult)
		v.CriterionMet = &met
	}
	return v, nil
}

func (s *roundState) decide(ctx context.Context) error {
	vsBase, err := s.compare(ctx, Checkpoint{Name: s.r.Cfg.Model.Name}, s.cand)
	if err != nil {
		return err
	}
	var vsStart *Verdict
	if !s.start.IsBase() {
		if vsStart, err = s.compare(ctx, s.start, s.cand); err != nil {
			return err
		}
	}
	if s.r.DryRun {
		return nil
	}
	if s.band == 0 {
		s.band, _ = countLines(s.l.Band())
	}
	cand := s.cand
	d := &Decision{Round: s.l.N, Start: s.start, Band: s.band, Candidate: &cand, VsBase: vsBase, VsStart: vsStart,
		Rule: s.rule(), Best: s.start, Decided: time.Now().UTC()}
	gain := func(v *Verdict) bool { return v != nil && v.Verdict == string(stats.VerdictGain) }
	d.Promoted = gain(vsBase) && (vsBase.CriterionMet == nil || *vsBase.CriterionMet) && (s.start.IsBase() || gain(vsStart))
	if d.Promoted {
		d.Best = cand
	}
	return writeJSONFile(s.l.Decision(), d)
}
