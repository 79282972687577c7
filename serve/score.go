package serve

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/verify"
)

// requestError is a request the client must fix (400).
type requestError struct{ msg string }

func (e *requestError) Error() string { return e.msg }

func badRequest(format string, args ...any) error {
	return &requestError{fmt.Sprintf(format, args...)}
}

// errDeadline means the request's deadline passed before any item was
// judged. A batch with some judged answers is sent instead, the rest
// marked unscored (toResult): a statement cut short by the deadline is
// never reported as the model's timeout.
var errDeadline = errors.New("the request's deadline passed before any answer of its batch was judged: retry after the Retry-After seconds, or send smaller batches")

// score judges a batch of items: the single path every route takes to the
// verifier, with the server's reward weights.
func (s *Server) score(ctx context.Context, items []Item) ([]Result, error) {
	return s.scoreWith(ctx, items, s.weights, false)
}

// scoreWith is score under the reward weights w (components.go). With
// perItem an unknown task id answers that item alone (OutcomeUnknownTask)
// instead of rejecting the batch: one stale id in a 512-answer batch
// would otherwise cost the trainer the other 511 rewards.
func (s *Server) scoreWith(ctx context.Context, items []Item, w verify.Weights, perItem bool) ([]Result, error) {
	var (
		taskAns  []verify.Answer
		taskIdx  []int
		adhocAns []verify.Answer
		adhocIdx []int
		golds    [][2]string
		dbs      = map[string]bool{}
	)
	eval := make([]bool, len(items))
	unknown := map[int]Result{}
	for i, it := range items {
		a := verify.Answer{Sample: i, FinishReason: it.FinishReason}
		var err error
		if eval[i], err = checkMode(it.Mode); err != nil {
			return nil, badRequest("item %d: %v", i, err)
		}
		switch {
		case it.SQL != nil && it.Completion != nil:
			return nil, badRequest("item %d: give completion or sql, not both", i)
		case it.SQL != nil:
			a.SQL = *it.SQL
			if strings.TrimSpace(a.SQL) == "" {
				// Extraction decides what an empty answer is.
				a.SQL, a.Completion = "", ""
			}
		case it.Completion != nil:
			a.Completion = *it.Completion
		default:
			return nil, badRequest("item %d: give completion (the model's reply) or sql", i)
		}
		switch {
		case it.TaskID != "" && (it.DB != "" || it.GoldSQL != ""):
			return nil, badRequest("item %d: give task_id, or db and gold_sql, not both", i)
		case it.TaskID != "":
			t, ok := s.tasks[it.TaskID]
			if !ok && perItem {
				unknown[i] = unknownTask(it.TaskID, len(s.tasks))
				continue
			}
			if !ok {
				return nil, badRequest("item %d: no task with id %q (the server was started with %d tasks)", i, it.TaskID, len(s.tasks))
			}
			if err := s.admit(t, eval[i]); err != nil {
				return nil, badRequest("item %d: %v", i, err)
			}
			a.TaskID = it.TaskID
			dbs[t.DB] = true
			taskAns, taskIdx = append(taskAns, a), append(taskIdx, i)
		case it.DB != "" && it.GoldSQL != "":
			if err := checkDBName(it.DB); err != nil {
				return nil, badRequest("item %d: %v", i, err)
			}
			if _, err := s.dbs.Resolve(it.DB); err != nil {
				return nil, badRequest("item %d: %v", i, err)
			}
			a.Task = &sqlgym.Task{ID: "adhoc", DB: it.DB, SQL: it.GoldSQL}
			dbs[it.DB] = true
			golds = append(golds, [2]string{it.DB, it.GoldSQL})
			adhocAns, adhocIdx = append(adhocAns, a), append(adhocIdx, i)
		default:
			return nil, badRequest("item %d: give task_id, or db and gold_sql", i)
		}
	}
	if len(items) == 0 {
		return []Result{}, nil
	}

	names := make([]string, 0, len(dbs))
	for n := range dbs {
		names = append(names, n)
		if u, err := s.dbs.Resolve(n); err == nil {
			s.dbNames.Store(u, n)
		}
	}
	release, err := s.limit.acquire(names)
	if err != nil {
		return nil, err
	}
	defer release()

	// The request's own share of the databases (fair.go).
	ctx = withFlow(ctx)
	start := time.Now()
	out := make([]Result, len(items))
	for i, r := range unknown {
		out[i] = r
	}
	if len(taskAns) > 0 {
		for j, r := range s.v.VerifyBatch(ctx, taskAns) {
			out[taskIdx[j]] = toResult(r)
		}
	}
	if len(adhocAns) > 0 {
		for j, r := range s.adhoc.verifier(golds).VerifyBatch(ctx, adhocAns) {
			out[adhocIdx[j]] = toResult(r)
		}
	}
	s.m.verifyTime.Observe(time.Since(start).Seconds())
	if ctx.Err() != nil && !s.partial(out) {
		return nil, errDeadline
	}
	for i, r := range out {
		s.countOutcome(eval[i], r.Outcome)
	}
	s.applyWeights(out, eval, w)
	return out, nil
}

// scoreOne judges one item for the routes that answer a single reward
// (slime, NeMo-Gym's /verify): there an infrastructure failure is the
// request's error, never a reward.
func (s *Server) scoreOne(ctx context.Context, it Item) (Result, error) {
	res, err := s.score(ctx, []Item{it})
	if err != nil {
		return Result{}, err
	}
	if res[0].Outcome == sqlgym.OutcomeInfraError {
		return Result{}, errInfra{res[0].Detail}
	}
	return res[0], nil
}

func toResult(r verify.Result) Result {
	res := Result{r.Verdict}
	if r.Abandoned {
		res.Reward, res.Outcome, res.ErrorKind, res.Why, res.Components = nil, OutcomeUnscored, "", "", nil
		res.Detail = "unscored: the request's deadline (serve --deadline) passed before this answer was judged; no reward: send it again in a later batch"
	}
	return res
}

// OutcomeUnknownTask is an item of a /v1/rewards batch whose task_id
// the server does not hold: reward null, the rest of the batch scored.
const OutcomeUnknownTask sqlgym.Outcome = "unknown_task"

func unknownTask(id string, n int) Result {
	return Result{sqlgym.Verdict{Outcome: OutcomeUnknownTask, Detail: fmt.Sprintf(
		"no task with id %q (the server was started with %d tasks); no reward: export the dataset from the tasks file this server serves, or restart serve with the tasks file the dataset came from", id, n)}}
}

// OutcomeUnscored is an answer of a request whose deadline passed before
// it was judged: reward null, like any outcome nobody may learn from.
// Only the reward server gives it; the verifier calls it infra_error.
const OutcomeUnscored sqlgym.Outcome = "unscored"

// partial reports whether a batch cut by its deadline has anything to
// send: some answer judged. A batch with none is a 503, which the client
// retries as a whole.
func (s *Server) partial(out []Result) bool {
	for _, r := range out {
		if r.Outcome != OutcomeUnscored {
			return true
		}
	}
	return false
}

// checkDBName keeps a request's database name a name: --db-dir joins it
// to a folder, so a path in it could reach any file.
func checkDBName(name string) error {
	if name == "." || name == ".." || strings.ContainsAny(name, `/\:`) || strings.Contains(name, "..") {
		return fmt.Errorf("database name %q: a name, not a path or URL (name databases with --db on the server)", name)
	}
	return nil
}
