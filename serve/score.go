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

// errDeadline means the request's deadline passed before every item was
// judged: its results are not sent, since a statement cut short by the
// deadline would look like the model's timeout.
var errDeadline = errors.New("the request's deadline passed before its batch was verified")

// score judges a batch of items: the single path both routes take to the
// verifier.
func (s *Server) score(ctx context.Context, items []Item) ([]Result, error) {
	var (
		taskAns  []verify.Answer
		taskIdx  []int
		adhocAns []verify.Answer
		adhocIdx []int
		golds    [][2]string
		dbs      = map[string]bool{}
	)
	eval := make([]bool, len(items))
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
	}
	release, err := s.limit.acquire(ctx, names)
	if err != nil {
		if errors.Is(err, errBusy) {
			return nil, err
		}
		return nil, errDeadline
	}
	defer release()

	start := time.Now()
	out := make([]Result, len(items))
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
	if ctx.Err() != nil {
		return nil, errDeadline
	}
	for i, r := range out {
		s.countOutcome(eval[i], r.Outcome)
	}
	return out, nil
}

func toResult(r verify.Result) Result {
	return Result{Reward: r.Reward, Outcome: r.Outcome, SQL: r.SQL, Detail: r.Detail, ErrorKind: r.ErrorKind, Why: r.Why, Variant: r.Variant}
}

// checkDBName keeps a request's database name a name: --db-dir joins it
// to a folder, so a path in it could reach any file.
func checkDBName(name string) error {
	if name == "." || name == ".." || strings.ContainsAny(name, `/\:`) || strings.Contains(name, "..") {
		return fmt.Errorf("database name %q: a name, not a path or URL (name databases with --db on the server)", name)
	}
	return nil
}
