package verify

import (
	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/failure"
)

// classifyRows gives a candidate that ran its failure class against each
// gold of the verifier's own mode it did not match. It runs in digest,
// while the rows are held: the classes are what stays of them. Only the
// verifier's mode is classified; --all-modes' other verdicts are counts.
func (v *Verifier) classifyRows(cd *candidate, rs *sqlgym.ResultSet, golds map[execKey]goldOut) {
	if !v.cfg.Failures {
		return
	}
	for _, u := range cd.uses {
		if u.mode != v.cfg.Mode {
			continue
		}
		for _, g := range u.golds {
			k := execKey{u.url, g}
			gr := golds[k]
			if gr.err != nil || gr.rs == nil {
				continue
			}
			if vd, ok := cd.verdicts.of(v.prepared(k, gr, u.mode, u.task)); !ok || vd.Match {
				continue
			}
			if _, done := cd.failures[k]; done {
				continue
			}
			if cd.failures == nil {
				cd.failures = map[execKey]*failure.Failure{}
			}
			f := failure.Classify(failure.Input{Dialect: sqlgym.URLDialect(u.url), PredSQL: cd.sql, GoldSQL: g,
				Pred: rs, Gold: gr.rs, Outcome: sqlgym.OutcomeWrong})
			cd.failures[k] = &f
		}
	}
}

// attachFailure sets the failure class of an answer that was not correct:
// on the first database (the task's own, then each variant in order) where
// the answer failed to run or did not match a gold. An answer right on the
// original and wrong on a variant gets the variant's class. Outcomes that
// are nobody's answer (gold and infrastructure errors) get none.
func (v *Verifier) attachFailure(r *Result, p modePlan, golds map[execKey]goldOut, cands map[execKey]*candidate) {
	if !v.cfg.Failures || !r.Outcome.Scored() || r.Outcome == sqlgym.OutcomeCorrect {
		return
	}
	for _, c := range p.checks {
		cd := cands[c.key]
		if cd == nil {
			continue
		}
		if cd.err != nil {
			f := failure.Classify(failure.Input{Dialect: sqlgym.URLDialect(c.url), PredSQL: cd.sql, Err: cd.err, Outcome: r.Outcome})
			r.Failure = &f
			return
		}
		for _, g := range c.golds {
			if f := cd.failures[execKey{c.url, g}]; f != nil {
				r.Failure = f
				return
			}
		}
	}
}

// finishFailure classifies the answers decided before anything ran.
func (v *Verifier) finishFailure(r *Result) {
	if v.cfg.Failures && (r.Outcome == sqlgym.OutcomeNoQuery || r.Outcome == sqlgym.OutcomeTruncated) {
		f := failure.Classify(failure.Input{Outcome: r.Outcome})
		r.Failure = &f
	}
}
