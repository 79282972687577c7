package serve

import (
	"github.com/sqlgym/sqlgym"
)

// Request modes. A trainer validating on held-out tasks (TRL's
// eval_dataset, verl's data.val_files, OpenRLHF's --eval.dataset) marks
// those requests "eval"; everything else is training.
const (
	ModeTrain = "train"
	ModeEval  = "eval"
)

// checkMode reads a request's mode: "" and "train" are training, "eval"
// evaluation.
func checkMode(mode string) (eval bool, err error) {
	switch mode {
	case "", ModeTrain:
		return false, nil
	case ModeEval:
		return true, nil
	}
	return false, badRequest("mode %q: \"train\" (the default) or \"eval\" (validation on held-out tasks)", mode)
}

// admit decides whether a request in the given mode may be scored on t.
// A held-out task is for evaluation: a training request never gets it
// (unless --include-holdout, which drops the split altogether), and an
// evaluation request gets it only with --eval-holdout, so a run cannot
// score held-out tasks by accident.
func (s *Server) admit(t *sqlgym.Task, eval bool) error {
	if s.cfg.IncludeHoldout || t.Split != sqlgym.SplitHoldout {
		return nil
	}
	if !eval {
		if s.cfg.EvalHoldout {
			return badRequest("task %q is held out: it is scored only on evaluation requests (send \"mode\": \"eval\"; the shims do for rows with split holdout)", t.ID)
		}
		return badRequest("task %q is held out: it is for evaluation, not training (start the server with --eval-holdout and send \"mode\": \"eval\" to validate on it, or --include-holdout to train on it)", t.ID)
	}
	if !s.cfg.EvalHoldout {
		return badRequest("task %q is held out and this server does not score held-out tasks: start it with --eval-holdout to validate on them", t.ID)
	}
	return nil
}

// countOutcome counts one judged item, evaluation apart from training so
// that validation never shows in the training series.
func (s *Server) countOutcome(eval bool, o sqlgym.Outcome) {
	if eval {
		s.m.evalOutcomes.WithLabelValues(string(o)).Inc()
		return
	}
	s.m.outcomes.WithLabelValues(string(o)).Inc()
}
