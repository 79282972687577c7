package run

import (
	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/eval"
	"github.com/sqlgym/sqlgym/rundir"

	"github.com/sqlgym/sqlgym/internal/cmd/cmdkit"
)

// retryTasks narrows the tasks to those --retry-failed's run failed: tasks
// with scored samples and none right. Without the flag the tasks are kept
// and a --hint is refused, since a hint on every task would measure
// nothing the plain run does not.
func retryTasks(tasks []sqlgym.Task, opts EvalOptions) ([]sqlgym.Task, error) {
	switch {
	case opts.Hint != "" && opts.Hint != eval.HintShape:
		return nil, cmdkit.Usagef("--hint %q: the one hint is shape", opts.Hint)
	case opts.Hint != "" && opts.RetryFailed == "":
		return nil, cmdkit.Usagef("--hint needs --retry-failed RUN: hints are for asking again the tasks a run failed")
	case opts.Hint != "" && opts.Agent.On:
		return nil, cmdkit.Usagef("--hint is for single-turn runs: an agent can run queries and see the result's shape itself")
	case opts.RetryFailed == "":
		return tasks, nil
	}
	samples, err := rundir.ReadSamples(opts.RetryFailed)
	if err != nil {
		return nil, sqlgym.Userf("give --retry-failed the folder of an eval run", "--retry-failed %s: %w", opts.RetryFailed, err)
	}
	scored, right := map[string]bool{}, map[string]bool{}
	for _, s := range samples {
		if s.Outcome.Scored() {
			scored[s.TaskID] = true
			if s.Outcome == sqlgym.OutcomeCorrect {
				right[s.TaskID] = true
			}
		}
	}
	var out []sqlgym.Task
	for _, t := range tasks {
		if scored[t.ID] && !right[t.ID] {
			out = append(out, t)
		}
	}
	if len(out) == 0 {
		return nil, sqlgym.Userf("check --tasks and --split against the run's", "--retry-failed %s: the run failed none of these tasks", opts.RetryFailed)
	}
	return out, nil
}
