package verify

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"time"

	"golang.org/x/sync/semaphore"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/internal/memo"
	"github.com/sqlgym/sqlgym/sqltext"
	"github.com/sqlgym/sqlgym/verify/compare"
	"github.com/sqlgym/sqlgym/verify/extract"
)

// Databases gives the verifier the sandboxed engine of a database and the
// variants a test-suite comparison runs on. *catalog.Catalog implements it.
type Databases interface {
	Resolve(name string) (string, error)
	Variants(name string) ([]string, error)
	// TaskVariants is Variants for one task of the database, which may
	// have a list of its own (the built-in shop's shipped set names each
	// task's: catalog.Catalog.TaskVariants); a task without one gets
	// Variants(name). Part of the interface, so that a wrapper embedding
	// it (a metrics or counting layer) passes the lists on.
	TaskVariants(name, task string) ([]string, error)
	EngineURL(ctx context.Context, url string) (sqlgym.Engine, error)
}

// Config sets how answers are judged.
type Config struct {
	Mode compare.Mode
	// AllModes adds every mode's verdict to each result.
	AllModes bool
	Rewards  Rewards
	Limits   sqlgym.Limits
	// Variants judges an answer correct in every mode only when it matches
	// on the original database and on every variant: the task's
	// db_variants, else the variants the catalog finds beside the database
	// (Databases.Variants). Golds are cached per variant, and each distinct
	// answer of a batch runs once per variant. The test-suite mode always
	// does this.
	Variants bool
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
	// Budget bounds the bytes of candidates' results held at once: each
	// statement takes its byte cap (Limits.MaxBytes) before it runs, so at
	// most Budget/MaxBytes run at once whatever Concurrency says. Share
	// one between verifiers to bound a process; nil gives the verifier a
	// budget of its own, DefaultBudget(Concurrency, Limits.MaxBytes), so
	// that the budget never runs fewer statements at once than
	// Concurrency asks for. Gold results are kept for the verifier's
	// lifetime and are not counted.
	Budget *ByteBudget
	// GoldRuns bounds the gold queries running at once. A gold runs
	// detached from the request that started it, so without this bound
	// requests abandoned over many distinct golds would leave as many runs
	// going. Share one between verifiers to bound a process; nil gives
	// the verifier Concurrency slots of its own.
	GoldRuns *semaphore.Weighted
	// Previews, when positive, keeps the first Previews rows of the
	// candidate's and the gold's results on answers that ran but were not
	// correct, so a run folder can show them without the database.
	Previews int
	// Gate, when set, admits each candidate statement to its database
	// before it takes its bytes and runs: the reward server's fair share
	// of each database's slots among requests. nil admits at once.
	Gate Gate
	// Failures gives every scored answer that is not correct its failure
	// class (Result.Failure), computed while its rows are held. The
	// reward server leaves it off: rewards do not need it.
	Failures bool
	// Components adds the reward components (components.go) to every
	// scored result: candidates are then read whole (up to the byte
	// caps), since partial credit needs every row, not just enough to
	// tell a mismatch.
	Components bool
	// LengthTarget is the reply length in characters under which the
	// length component is 1 (default DefaultLengthTarget).
	LengthTarget int
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
	// Rerun runs the SQL even when it is the gold's own text, which is
	// otherwise judged on the gold's result: serve's Warm uses it to find
	// golds that do not give the same rows twice.
	Rerun bool
}

// Result is the verdict on one answer, with the answer it judges.
type Result struct {
	TaskID string `json:"task_id"`
	Sample int    `json:"sample"`
	sqlgym.Verdict
	// Abandoned marks an infra_error that only says the caller stopped
	// waiting (its deadline or cancellation) before the answer was
	// judged: the reward server reports such answers as unscored.
	Abandoned bool `json:"-"`
}

// Gate admits statements to a database (Config.Gate). Enter waits for
// the database's turn under ctx and returns the function that gives the
// turn back; an error means ctx ended first.
type Gate interface {
	Enter(ctx context.Context, url string) (leave func(), err error)
}

// Verifier judges answers against tasks. It caches gold results for its
// lifetime and runs each distinct candidate query once per batch. Safe for
// concurrent use.
type Verifier struct {
	cfg    Config
	dbs    Databases
	tasks  map[string]*sqlgym.Task
	budget *ByteBudget
	// golds keeps each gold's outcome when it is the gold's own (rows, its
	// error, its step budget spent), never an outage or a run cut short.
	golds memo.Map[execKey, *goldEntry]
	// schemas holds each database's schema for the schema component
	// (nil for an engine that cannot describe itself).
	schemas memo.Map[string, *sqlgym.Schema]
	// goldUsed holds the tables and columns each gold reads ([]string by
	// execKey), for the schema component.
	goldUsed sync.Map
}

type execKey struct{ url, sql string }

type goldEntry struct {
	rs    *sqlgym.ResultSet
	err   error
	cause cause

	mu       sync.Mutex
	prepared map[prepKey]*compare.Gold
	// multiset is the gold's rows as the reward components compare them
	// (Config.Components), made on first use.
	multiset *multiset
	// textKey is the gold's text as the result cache keys it
	// (sqltext.Key), made once: every batch looks answers up by it.
	textKey string
}

// key returns the gold's cache key for the dialect of url.
func (ge *goldEntry) key(url, sql string) string {
	ge.mu.Lock()
	defer ge.mu.Unlock()
	if ge.textKey == "" {
		ge.textKey = sqltext.Key(sqlgym.URLDialect(url), sql)
	}
	return ge.textKey
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
	if cfg.GoldRuns == nil {
		cfg.GoldRuns = semaphore.NewWeighted(int64(cfg.Concurrency))
	}
	if cfg.LengthTarget <= 0 {
		cfg.LengthTarget = DefaultLengthTarget
	}
	if cfg.Budget == nil {
		cfg.Budget = NewByteBudget(DefaultBudget(cfg.Concurrency, cfg.Limits.MaxBytes))
	}
	v := &Verifier{cfg: cfg, dbs: dbs, budget: cfg.Budget, tasks: make(map[string]*sqlgym.Task, len(tasks))}
	for i := range tasks {
		v.tasks[tasks[i].ID] = &tasks[i]
	}
	return v
}

// ModeLabel names Mode with its order policy when the policy is not the
// mode's default ("strict order=always") and with "variants" when answers
// are judged on variant databases too, so that records of runs judged
// under different policies never look alike; otherwise it is the mode.
func (c Config) ModeLabel() string {
	label := string(c.Mode)
	if c.Mode.TakesOrder() && c.Order != compare.OrderDefault && c.Order != compare.OrderDefault.Resolve(c.Mode) {
		label += " order=" + string(c.Order)
	}
	if c.Variants && c.Mode != compare.TestSuite {
		label += " variants" // judged on more databases: not comparable with a run on the original alone
	}
	return label
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
	var shape []replyShape // the components each reply, not its SQL, decides
	if v.cfg.Components {
		shape = make([]replyShape, len(answers))
	}
	var (
		jobs      []*answerJob
		leads     = make(map[jobKey]*answerJob, len(answers)/4+1)
		followers []follower
	)
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
		if v.cfg.Components {
			shape[i] = v.replyShape(a)
		}
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
				why := "no SQL found in the reply"
				if len(a.Completion) > extract.MaxReplyBytes {
					why = fmt.Sprintf("the reply is %d bytes, over the %d that are read (docs/extraction.md)", len(a.Completion), extract.MaxReplyBytes)
				}
				v.finish(r, sqlgym.OutcomeNoQuery, why)
				continue
			}
			sql = ex.SQL
		}
		r.SQL = sql
		// Sampling repeats itself: of a task's 16 answers, most are the
		// same text. Answers with the same task and text share one job
		// and its verdict; planning and judging are per distinct text.
		k := jobKey{task, sql, a.Rerun}
		if lead, ok := leads[k]; ok {
			followers = append(followers, follower{r, lead})
			continue
		}
		j := &answerJob{res: r, task: task, sql: sql, rerun: a.Rerun}
		leads[k] = j
		jobs = append(jobs, j)
	}
	if len(jobs) > 0 {
		v.run(ctx, jobs)
	}
	// The followers' reward and score values, in one allocation.
	vals := make([]float64, 0, 2*len(followers))
	for _, f := range followers {
		vals = f.res.share(f.lead.res, vals)
	}
	if v.cfg.Components {
		for i := range results {
			shape[i].into(&results[i])
		}
	}
	return results
}

// jobKey identifies answers that must get the same verdict.
type jobKey struct {
	task  *sqlgym.Task
	sql   string
	rerun bool
}

// follower is an answer judged as the lead job with the same jobKey.
type follower struct {
	res  *Result
	lead *answerJob
}

// share gives r the verdict of lead, an answer with the same task and
// SQL. The reward and score are copied into vals, not shared, so results
// stay independent values; it returns vals extended.
func (r *Result) share(lead *Result, vals []float64) []float64 {
	id, sample := r.TaskID, r.Sample
	*r = *lead
	r.TaskID, r.Sample = id, sample
	r.Reward, vals = clonePtr(lead.Reward, vals)
	r.Score, vals = clonePtr(lead.Score, vals)
	if lead.Modes != nil {
		r.Modes = make(map[string]sqlgym.ModeVerdict, len(lead.Modes))
		for m, mv := range lead.Modes {
			mv.Reward, vals = clonePtr(mv.Reward, vals)
			mv.Score, vals = clonePtr(mv.Score, vals)
			r.Modes[m] = mv
		}
	}
	return vals
}

// clonePtr copies *p into vals and points at the copy. vals never grows
// (so pointers into it stay valid): once it is full (per-mode values),
// each copy gets an allocation of its own.
func clonePtr(p *float64, vals []float64) (*float64, []float64) {
	if p == nil {
		return nil, vals
	}
	if len(vals) == cap(vals) {
		x := *p
		return &x, vals
	}
	vals = append(vals, *p)
	return &vals[len(vals)-1], vals
}

func (v *Verifier) finish(r *Result, o sqlgym.Outcome, detail string) {
	r.Outcome, r.Detail = o, detail
	r.Reward = v.cfg.Rewards.For(o, 0)
	if v.cfg.Components {
		r.Components = unrun(r.Reward)
	}
	v.finishFailure(r)
	if v.cfg.AllModes {
		r.Modes = map[string]sqlgym.ModeVerdict{}
		for _, m := range v.modes() {
			r.Modes[string(m)] = sqlgym.ModeVerdict{Outcome: o, Reward: r.Reward}
		}
	}
}

// exec runs one statement, trying again with a short backoff while the
// database is unavailable (Config.InfraRetries times).
func (v *Verifier) exec(ctx context.Context, url, sql string, lim sqlgym.Limits) (*sqlgym.ResultSet, error) {
	once := func() (*sqlgym.ResultSet, error) {
		eng, err := v.dbs.EngineURL(ctx, url)
		if err != nil {
			if sqlgym.IsInfra(err) || ctx.Err() != nil {
				return nil, err
			}
			return nil, &sqlgym.InfraError{Err: err}
		}
		return eng.Query(ctx, sql, lim)
	}
	rs, err := once()
	for try := 0; try < v.cfg.InfraRetries && causeOf(ctx, err).retryable(); try++ {
		select {
		case <-ctx.Done():
		case <-time.After(time.Duration(100*(1<<try)) * time.Millisecond):
		}
		rs, err = once()
	}
	return rs, err
}

// goldBound bounds a gold's run, retries included. The run is detached
// from the request that started it (a request's deadline must not decide
// a gold that every later batch relies on), so it needs a bound of its
// own; the gold limits stop the statement well before it.
func goldBound(gl sqlgym.Limits, retries int) time.Duration {
	return time.Duration(retries+1)*max(gl.Timeout, gl.SafetyNet) + 10*time.Second
}

// gold runs a gold query under the gold limits, once for every caller
// waiting for it, and keeps its outcome for the verifier's lifetime when
// that outcome is the gold's own. A caller whose context ends stops
// waiting; the run goes on, and the next batch finds its result.
func (v *Verifier) gold(ctx context.Context, url, sql string) (*goldEntry, error) {
	return v.golds.Do(ctx, execKey{url, sql}, func() (*goldEntry, error) {
		gl := v.cfg.Limits.GoldLimits()
		gctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), goldBound(gl, v.cfg.InfraRetries))
		defer cancel()
		if err := v.cfg.GoldRuns.Acquire(gctx, 1); err != nil {
			err = fmt.Errorf("waiting for a free gold run: %w", err)
			return &goldEntry{err: err, cause: causeAbandoned}, err
		}
		defer v.cfg.GoldRuns.Release(1)
		rs, err := v.exec(gctx, url, sql, gl)
		return &goldEntry{rs: rs, err: err, cause: causeOf(gctx, err)}, err
	}, func(ge *goldEntry, _ error) bool { return ge.cause.memoisable() })
}

// GoldShape runs a task's first gold (once, kept as every gold is) and
// returns its column names and row count: what eval's shape hint shows.
// The gold's own failure and an outage are errors.
func (v *Verifier) GoldShape(ctx context.Context, t *sqlgym.Task) ([]string, int, error) {
	url, err := v.dbs.Resolve(t.DB)
	if err != nil {
		return nil, 0, err
	}
	// The gold judging uses on this engine (Task.GoldByDialect).
	gold := t.GoldFor(sqlgym.URLDialect(url))
	if gold == "" {
		return nil, 0, fmt.Errorf("task %s has no gold", t.ID)
	}
	ge, err := v.gold(ctx, url, gold)
	if err != nil {
		return nil, 0, err
	}
	return append([]string(nil), ge.rs.Columns...), len(ge.rs.Rows), nil
}
