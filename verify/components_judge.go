package verify

import (
	"context"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/link"
	"github.com/sqlgym/sqlgym/verify/extract"
)

// replyShape is what the reply itself, not the SQL it holds, decides:
// answers with the same SQL share a verdict but not these.
type replyShape struct {
	set            bool
	format, length float64
}

// replyShape scores where the answer's SQL was found and its length.
func (v *Verifier) replyShape(a Answer) replyShape {
	if a.SQL != "" {
		return replyShape{set: true, format: 1, length: lengthScore(len(a.SQL), v.cfg.LengthTarget)}
	}
	ex := extract.FromCompletion(a.Completion, "")
	return replyShape{set: true, format: formatScore(ex.Method), length: lengthScore(len(a.Completion), v.cfg.LengthTarget)}
}

// into adds the shape to r's components, on a copy of the map: answers
// with the same SQL share the lead's map.
func (s replyShape) into(r *Result) {
	if !s.set || r.Components == nil {
		return
	}
	c := make(sqlgym.Components, len(r.Components)+2)
	for k, x := range r.Components {
		c[k] = x
	}
	c[CompFormat], c[CompLength] = s.format, s.length
	r.Components = c
}

// unrun are the components of an answer decided before anything ran (no
// query found): its outcome reward and zero for the rest. An outcome
// without a reward has no components.
func unrun(reward *float64) sqlgym.Components {
	if reward == nil {
		return nil
	}
	return sqlgym.Components{CompOutcome: *reward, CompExecutes: 0, CompRows: 0, CompRowPrecision: 0, CompRowRecall: 0,
		CompCells: 0, CompCellPrecision: 0, CompCellRecall: 0, CompCardinality: 0, CompSchema: 0}
}

// rowComponents compares a candidate's rows with every gold of the
// verifier's mode while digest holds them (they are dropped after).
func (v *Verifier) rowComponents(cd *candidate, rs *sqlgym.ResultSet, golds map[execKey]goldOut) {
	if !v.cfg.Components {
		return
	}
	var pred *multiset
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
			if _, done := cd.stats[k]; done {
				continue
			}
			if cd.stats == nil {
				cd.stats = map[execKey]rowStats{}
			}
			if pred == nil {
				pred = newMultiset(rs)
			}
			cd.stats[k] = compareRows(pred, goldMultiset(gr))
		}
	}
}

// loadSchemas describes, once per verifier, each database the jobs run
// on: the schema component reads table and column names from it. An
// engine that cannot describe itself, or fails to, gives no schema (and
// no schema component) rather than failing the batch.
func (v *Verifier) loadSchemas(ctx context.Context, jobs []*answerJob) {
	for _, j := range jobs {
		if len(j.plans) == 0 || len(j.plans[0].checks) == 0 {
			continue
		}
		url := j.plans[0].checks[0].url
		_, _ = v.schemas.Do(ctx, url, func() (*sqlgym.Schema, error) {
			eng, err := v.dbs.EngineURL(ctx, url)
			if err != nil {
				return nil, err
			}
			d, ok := describer(eng)
			if !ok {
				return nil, nil
			}
			return d.Describe(ctx)
		}, func(_ *sqlgym.Schema, err error) bool { return err == nil })
	}
}

// attachComponents sets the components of a judged answer: the outcome
// reward, whether it ran, the result comparison with the best-matching
// gold on the task's own database, and the schema overlap of the SQL.
func (v *Verifier) attachComponents(r *Result, j *answerJob, p modePlan, golds map[execKey]goldOut, cands map[execKey]*candidate) {
	if !v.cfg.Components {
		return
	}
	c := unrun(r.Reward)
	if c == nil || len(p.checks) == 0 {
		r.Components = c
		return
	}
	if r.Outcome == sqlgym.OutcomeCorrect || r.Outcome == sqlgym.OutcomeWrong {
		c[CompExecutes] = 1
	}
	check := p.checks[0]
	if cd := cands[check.key]; cd != nil && cd.err == nil {
		var best rowStats
		found := false
		for _, g := range check.golds {
			st, ok := cd.stats[execKey{check.url, g}]
			if ok && (!found || st.rowHits*max(best.predRows+best.goldRows, 1) > best.rowHits*max(st.predRows+st.goldRows, 1)) {
				best, found = st, true
			}
		}
		if found {
			best.into(c)
		}
	}
	if s, err, ok := v.schemas.Peek(check.url); ok && err == nil && s != nil && len(check.golds) > 0 {
		pred := link.Parse(j.sql, s)
		c[CompSchema] = jaccard(append(pred.Tables, pred.Columns...), v.goldNames(execKey{check.url, check.golds[0]}, s))
	}
	r.Components = c
}

// describer finds the sqlgym.Describer of an engine, through wrappers
// (serve's timing, tests' counting) that say what they wrap with Unwrap.
func describer(eng sqlgym.Engine) (sqlgym.Describer, bool) {
	for eng != nil {
		if d, ok := eng.(sqlgym.Describer); ok {
			return d, true
		}
		u, ok := eng.(interface{ Unwrap() sqlgym.Engine })
		if !ok {
			return nil, false
		}
		eng = u.Unwrap()
	}
	return nil, false
}

// goldMultiset is a gold result's multiset, made once and kept with the
// cached gold (an uncached gold, ad hoc, makes its own each time).
func goldMultiset(gr goldOut) *multiset {
	if gr.ge == nil {
		return newMultiset(gr.rs)
	}
	gr.ge.mu.Lock()
	defer gr.ge.mu.Unlock()
	if gr.ge.multiset == nil {
		gr.ge.multiset = newMultiset(gr.rs)
	}
	return gr.ge.multiset
}

// goldNames are the tables and columns a gold reads, parsed once per gold:
// every answer to its task compares with them.
func (v *Verifier) goldNames(k execKey, s *sqlgym.Schema) []string {
	if names, ok := v.goldUsed.Load(k); ok {
		return names.([]string)
	}
	u := link.Parse(k.sql, s)
	names := append(append([]string{}, u.Tables...), u.Columns...)
	v.goldUsed.Store(k, names)
	return names
}
