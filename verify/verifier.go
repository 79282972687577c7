package verify

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"time"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/verify/compare"
	"github.com/sqlgym/sqlgym/verify/extract"
)

// Databases gives the verifier the sandboxed engine of a database and the
// variants a test-suite comparison runs on. *catalog.Catalog implements it.
type Databases interface {
	Resolve(name string) (string, error)
	Variants(name string) ([]string, error)
	EngineURL(ctx context.Context, url string) (sqlgym.Engine, error)
}

// Config sets how answers are judged.
type Config struct {
	Mode compare.Mode
	// AllModes adds every mode's verdict to each result.
	AllModes bool
	Rewards  Rewards
	Limits   sqlgym.Limits
	// KeepDistinct turns off the test-suite mode's default removal of
	// DISTINCT from both queries.
	KeepDistinct bool
	// Order says when row order matters in strict and multiset (also
	// under AllModes); empty is each mode's default: ignore in strict,
	// gold_order_by in multiset. The other modes follow their scorers.
	Order compare.OrderPolicy
	// Concurrency bounds the statements run at once (default 2 x CPUs).
	Concurrency int
	// InfraRetries is how often a statement that failed because the
	// database was unavailable is tried again (default 2).
	InfraRetries int
	// Cache, when set, keeps candidates' results across batches (the
	// reward server); nil runs each batch's statements afresh.
	Cache *ResultCache
	// Previews, when positive, keeps the first Previews rows of the
	// candidate's and the gold's results on answers that ran but were not
	// correct, so a run folder can show them without the database.
	Previews int
}

// Answer is one model answer to verify: SQL as it is, or a completion that
// goes through extraction.
type Answer struct {
	TaskID       string
	Sample       int
	SQL          string
	Completion   string
	FinishReason string
	// Task, when set, is used instead of looking TaskID up: for answers
	// to ad-hoc tasks that carry their own database and gold.
	Task *sqlgym.Task
}

// Result is the verdict on one answer.
type Result struct {
	TaskID    string                 `json:"task_id"`
	Sample    int                    `json:"sample"`
	SQL       string                 `json:"sql"`
	Outcome   sqlgym.Outcome         `json:"outcome"`
	Reward    *float64               `json:"reward"`
	Detail    string                 `json:"detail"`
	ErrorKind sqlgym.ErrorKind       `json:"error_kind,omitempty"`
	Why       string                 `json:"why,omitempty"`
	Score     *float64               `json:"score,omitempty"`
	Modes     map[string]ModeVerdict `json:"modes,omitempty"`
	// Gold, PredPreview and GoldPreview are set with Config.Previews (see
	// attachPreviews).
	Gold        string   `json:"gold,omitempty"`
	PredPreview *Preview `json:"pred_preview,omitempty"`
	GoldPreview *Preview `json:"gold_preview,omitempty"`
}

// ModeVerdict is one mode's judgement of an answer, for --all-modes.
type ModeVerdict struct {
	Outcome sqlgym.Outcome `json:"outcome"`
	Reward  *float64       `json:"reward"`
	Why     string         `json:"why,omitempty"`
	Score   *float64       `json:"score,omitempty"`
}

// Verifier judges answers against tasks. It caches gold results for its
// lifetime and runs each distinct candidate query once per batch. Safe for
// concurrent use.
type Verifier struct {
	cfg   Config
	dbs   Databases
	tasks map[string]*sqlgym.Task
	golds sync.Map // execKey -> *goldEntry
}

type execKey struct{ url, sql string }

type goldEntry struct {
	once sync.Once
	rs   *sqlgym.ResultSet
	err  error

	mu       sync.Mutex
	prepared map[prepKey]*compare.Gold
}

// New builds a verifier over the tasks.
func New(dbs Databases, tasks []sqlgym.Task, cfg Config) *Verifier {
	if cfg.Mode == "" {
		cfg.Mode = compare.Multiset
	}
	if cfg.Rewards == nil {
		cfg.Rewards = DefaultRewards()
	}
	if cfg.Concurrency <= 0 {
		cfg.Concurrency = 2 * runtime.GOMAXPROCS(0)
	}
	if cfg.InfraRetries < 0 {
		cfg.InfraRetries = 0
	} else if cfg.InfraRetries == 0 {
		cfg.InfraRetries = 2
	}
	cfg.Limits = cfg.Limits.WithDefaults()
	v := &Verifier{cfg: cfg, dbs: dbs, tasks: make(map[string]*sqlgym.Task, len(tasks))}
	for i := range tasks {
		v.tasks[tasks[i].ID] = &tasks[i]
	}
	return v
}

// ModeLabel names Mode with its order policy when the policy is not the
// mode's default ("strict order=always"), so that records of runs judged
// under different policies never look alike; otherwise it is the mode.
func (c Config) ModeLabel() string {
	if c.Mode.TakesOrder() && c.Order != compare.OrderDefault && c.Order != compare.OrderDefault.Resolve(c.Mode) {
		return string(c.Mode) + " order=" + string(c.Order)
	}
	return string(c.Mode)
}

// Config returns the verifier's settings, defaults filled in.
func (v *Verifier) Config() Config { return v.cfg }

// Task returns the task with the given id.
func (v *Verifier) Task(id string) (*sqlgym.Task, bool) {
	t, ok := v.tasks[id]
	return t, ok
}

// Verify judges one answer.
func (v *Verifier) Verify(ctx context.Context, a Answer) Result {
	return v.VerifyBatch(ctx, []Answer{a})[0]
}

func (v *Verifier) modes() []compare.Mode {
	if v.cfg.AllModes {
		ms := []compare.Mode{v.cfg.Mode}
		for _, m := range compare.Modes {
			if m != v.cfg.Mode {
				ms = append(ms, m)
			}
		}
		return ms
	}
	return []compare.Mode{v.cfg.Mode}
}

// VerifyBatch judges answers; results come back in input order. Each
// distinct (database, normalised SQL) in the batch runs once, and gold
// results are computed once per task and database variant.
func (v *Verifier) VerifyBatch(ctx context.Context, answers []Answer) []Result {
	results := make([]Result, len(answers))
	jobs := make([]*answerJob, 0, len(answers))
	for i, a := range answers {
		r := &results[i]
		r.TaskID, r.Sample = a.TaskID, a.Sample
		task := a.Task
		if task == nil {
			t, ok := v.tasks[a.TaskID]
			if !ok {
				v.finish(r, sqlgym.OutcomeGoldError, fmt.Sprintf("no task with id %q", a.TaskID))
				continue
			}
			task = t
		} else if r.TaskID == "" {
			r.TaskID = task.ID
		}
		sql := a.SQL
		if a.FinishReason == "length" {
			r.SQL = sql
			v.finish(r, sqlgym.OutcomeTruncated, "the reply was cut off by the token limit (finish_reason length)")
			continue
		}
		if sql == "" {
			ex := extract.FromCompletion(a.Completion, a.FinishReason)
			switch ex.Status {
			case extract.StatusTruncated:
				v.finish(r, sqlgym.OutcomeTruncated, "the reply was cut off by the token limit (finish_reason length)")
				continue
			case extract.StatusNoQuery:
				v.finish(r, sqlgym.OutcomeNoQuery, "no SQL found in the reply")
				continue
			}
			sql = ex.SQL
		}
		r.SQL = sql
		jobs = append(jobs, &answerJob{res: r, task: task, sql: sql})
	}
	if len(jobs) > 0 {
		v.run(ctx, jobs)
	}
	return results
}

func (v *Verifier) finish(r *Result, o sqlgym.Outcome, detail string) {
	r.Outcome, r.Detail = o, detail
	r.Reward = v.cfg.Rewards.For(o, 0)
	if v.cfg.AllModes {
		r.Modes = map[string]ModeVerdict{}
		for _, m := range v.modes() {
			r.Modes[string(m)] = ModeVerdict{Outcome: o, Reward: r.Reward}
		}
	}
}

// retryInfra runs fn, trying again with a short backoff while the database
// is unavailable.
func (v *Verifier) retryInfra(ctx context.Context, fn func() (*sqlgym.ResultSet, error)) (*sqlgym.ResultSet, error) {
	rs, err := fn()
	for try := 0; try < v.cfg.InfraRetries && err != nil && isInfra(err) && ctx.Err() == nil; try++ {
		select {
		case <-ctx.Done():
		case <-time.After(time.Duration(100*(1<<try)) * time.Millisecond):
		}
		rs, err = fn()
	}
	return rs, err
}

// isInfra treats every error that is not the statement's own (an
// ExecError, a timeout, a result too large) as the infrastructure's, so an
// unknown failure never becomes a model's mistake.
func isInfra(err error) bool {
	var ee *sqlgym.ExecError
	return !errors.As(err, &ee) && !errors.Is(err, sqlgym.ErrTimeout) && !errors.Is(err, sqlgym.ErrTooLarge)
}

// gold runs a gold query once per verifier lifetime.
func (v *Verifier) gold(ctx context.Context, url, sql string) (*sqlgym.ResultSet, *goldEntry, error) {
	e, _ := v.golds.LoadOrStore(execKey{url, sql}, &goldEntry{})
	ge := e.(*goldEntry)
	ge.once.Do(func() {
		ge.rs, ge.err = v.retryInfra(ctx, func() (*sqlgym.ResultSet, error) {
			eng, err := v.dbs.EngineURL(ctx, url)
			if err != nil {
				return nil, &sqlgym.InfraError{Err: err}
			}
			return eng.Query(ctx, sql, v.cfg.Limits)
		})
	})
	if ge.err != nil && isInfra(ge.err) {
		// Do not keep an outage in the cache: the next batch tries again.
		v.golds.Delete(execKey{url, sql})
	}
	return ge.rs, ge, ge.err
}
