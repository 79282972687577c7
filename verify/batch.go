package verify

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/engine"
	"github.com/sqlgym/sqlgym/failure"
	"github.com/sqlgym/sqlgym/internal/redact"
	"github.com/sqlgym/sqlgym/sqltext"
	"github.com/sqlgym/sqlgym/verify/compare"
)

// answerJob is an answer with SQL to run, and what each mode needs of it.
type answerJob struct {
	res   *Result
	task  *sqlgym.Task
	sql   string
	rerun bool // run even when it is a gold's text (Answer.Rerun)
	plans []modePlan
	// fail is set when the answer's verdict was decided before comparing
	// (a database that does not resolve).
	fail *earlyFail
}

type earlyFail struct {
	outcome sqlgym.Outcome
	detail  string
}

// modePlan is what one mode runs for one answer: on each database variant
// (one, except for the test-suite mode), the golds and the candidate.
type modePlan struct {
	mode   compare.Mode
	checks []variantCheck
}

type variantCheck struct {
	url   string
	golds []string
	pred  string
	key   execKey // the candidate: url and normalised pred
}

// candidate is one distinct statement of the batch. Its rows are judged
// against every gold its answers need as soon as they arrive and then
// dropped: what stays until the batch is judged is the verdicts, the
// failure if any, and a preview.
type candidate struct {
	key       execKey
	sql       string
	stopAfter int // 0: read everything
	readAll   bool
	rerun     bool
	uses      []candUse
	err       error
	cause     cause
	preview   *sqlgym.Preview
	// failures holds the failure class against each gold it did not
	// match (Config.Failures), by the gold's (url, sql).
	failures map[execKey]*failure.Failure

	// skipped is set on a candidate on a variant database that was not
	// run because the same statement matched no gold on the original:
	// the answers using it are wrong whatever the variant says.
	skipped bool

	// verdicts holds the comparisons against each prepared gold: the
	// answers that share this candidate share its verdict. Written by the
	// one goroutine that runs the candidate, read after the batch's
	// candidates are done.
	verdicts verdicts
	// stats compares the rows with each gold of the verifier's mode, for
	// the reward components (Config.Components).
	stats map[execKey]rowStats
}

// verdicts are a candidate's comparisons, one per prepared gold: a
// candidate is judged against few golds, so a scan beats a map (and one
// allocation per candidate less).
type verdicts []goldVerdict

type goldVerdict struct {
	g  *compare.Gold
	vd compare.Verdict
}

func (vs verdicts) of(g *compare.Gold) (compare.Verdict, bool) {
	for _, gv := range vs {
		if gv.g == g {
			return gv.vd, true
		}
	}
	return compare.Verdict{}, false
}

// candUse is one way answers use a candidate: under a mode, for a task,
// on a database variant.
type candUse struct {
	mode  compare.Mode
	task  *sqlgym.Task
	url   string
	golds []string
}

// run judges a batch in five phases, each a function of its own: plan
// every answer under every mode, take the golds, gather the distinct
// candidates, run or look them up, and judge the answers.
func (v *Verifier) run(ctx context.Context, jobs []*answerJob) {
	modes := v.modes()
	newPlanner(v).plan(jobs, modes)
	golds := v.takeGolds(ctx, goldKeys(jobs))
	cands, order := gatherCandidates(jobs, golds, v.cfg.Components)
	v.runCandidates(ctx, v.stage(order, cands, golds, jobs, modes), golds)
	// Judging reads the finished verdicts only, so answers are judged in
	// parallel too.
	if v.cfg.Components {
		v.loadSchemas(ctx, jobs)
	}
	v.parallel(len(jobs), func(i int) { v.judge(jobs[i], golds, cands) })
}

// goldKeys lists every gold the batch's plans need on each database,
// once, in the order the plans name them.
func goldKeys(jobs []*answerJob) []execKey {
	var keys []execKey
	seen := map[execKey]bool{}
	for _, j := range jobs {
		for _, p := range j.plans {
			for _, c := range p.checks {
				for _, g := range c.golds {
					k := execKey{c.url, g}
					if !seen[k] {
						seen[k] = true
						keys = append(keys, k)
					}
				}
			}
		}
	}
	return keys
}

// takeGolds gives each gold's result, first because the candidates' row
// budgets depend on them. Golds the verifier keeps (every batch of a
// training loop but the first) are taken at once; only the others need a
// parallel phase, whose goroutines would cost more than the look-ups.
func (v *Verifier) takeGolds(ctx context.Context, keys []execKey) map[execKey]goldOut {
	out := make(map[execKey]goldOut, len(keys))
	missing := keys[:0:0]
	for _, k := range keys {
		if ge, err, ok := v.golds.Peek(k); ok {
			out[k] = goldOutOf(ctx, ge, err)
		} else {
			missing = append(missing, k)
		}
	}
	var mu sync.Mutex
	v.parallel(len(missing), func(i int) {
		k := missing[i]
		ge, err := v.gold(ctx, k.url, k.sql)
		gr := goldOutOf(ctx, ge, err)
		mu.Lock()
		out[k] = gr
		mu.Unlock()
	})
	return out
}

// gatherCandidates makes the batch's distinct candidates, each with the
// largest row budget any use needs (all rows with components) and every
// (mode, task, variant) it is judged for; order is the candidates in the
// order the answers first name them.
func gatherCandidates(jobs []*answerJob, golds map[execKey]goldOut, components bool) (cands map[execKey]*candidate, order []*candidate) {
	cands = make(map[execKey]*candidate, len(jobs))
	for _, j := range jobs {
		for _, p := range j.plans {
			for _, c := range p.checks {
				cd := cands[c.key]
				if cd == nil {
					cd = &candidate{key: c.key, sql: c.pred}
					cands[c.key] = cd
					order = append(order, cd)
				}
				cd.rerun = cd.rerun || j.rerun
				// Each (mode, task, variant) once: a scan, as a candidate
				// has few uses (one shared by many tasks has one per task).
				if !slices.ContainsFunc(cd.uses, func(u candUse) bool { return u.mode == p.mode && u.task == j.task && u.url == c.url }) {
					cd.uses = append(cd.uses, candUse{p.mode, j.task, c.url, c.golds})
				}
				for _, g := range c.golds {
					gr := golds[execKey{c.url, g}]
					if gr.err != nil {
						continue
					}
					n := compare.StopAfter(p.mode, gr.rs)
					if n <= 0 || components {
						cd.readAll = true
					} else if n > cd.stopAfter {
						cd.stopAfter = n
					}
				}
			}
		}
	}
	return cands, order
}

// stages are the candidates of a batch by how they are judged: ready
// ones have a result already (a gold's, or serve's cache) and are only
// compared; run ones run now; later ones, on variant databases, run only
// if a counterpart on the original could still make an answer correct.
type stages struct {
	ready        []known
	run, later   []*candidate
	counterparts map[execKey][]execKey
	cands        map[execKey]*candidate
}

// known is a candidate with its result already at hand.
type known struct {
	cd *candidate
	rs *sqlgym.ResultSet
}

// stage sorts the candidates into stages.
func (v *Verifier) stage(order []*candidate, cands map[execKey]*candidate, golds map[execKey]goldOut, jobs []*answerJob, modes []compare.Mode) stages {
	// An answer whose key is a gold's, on the same database, is that
	// gold: it is judged on the gold's result, not run again.
	goldByText := map[execKey]goldOut{}
	for k, gr := range golds {
		// A gold without an error has its entry (v.gold returns none only
		// with an error), which keys its text once.
		if gr.err == nil {
			goldByText[execKey{k.url, gr.ge.key(k.url, k.sql)}] = gr
		}
	}
	st := stages{run: order[:0:0], counterparts: map[execKey][]execKey{}, cands: cands}
	for _, cd := range order {
		if gr, ok := goldByText[cd.key]; ok && !cd.rerun {
			st.ready = append(st.ready, known{cd, gr.rs})
			continue
		}
		if c := v.cfg.Cache; c != nil {
			// Statements an earlier batch ran need not run again.
			if rs, err, ok := c.get(cd.key, cd.readAll, cd.stopAfter); ok {
				cd.err, cd.cause = err, causeOf(context.Background(), err)
				st.ready = append(st.ready, known{cd, rs})
				continue
			}
		}
		st.run = append(st.run, cd)
	}
	// Under Config.Variants an answer must match on the original and on
	// every variant, so a statement runs on the variants only after it
	// matched on the original: most wrong answers then cost one run, not
	// one per variant. F1's partial credit is the least score over all
	// databases, so it needs every run.
	if v.cfg.Variants && !slices.Contains(modes, compare.F1) {
		st.run, st.later = deferVariants(st.run, jobs, st.counterparts)
	}
	return st
}

// deferVariants splits run into the candidates to run now and those on a
// variant database whose answers also use a candidate on the original
// (recorded in counterparts, by the variant candidate's key).
func deferVariants(run []*candidate, jobs []*answerJob, counterparts map[execKey][]execKey) (now, later []*candidate) {
	first := map[execKey]bool{}
	for _, j := range jobs {
		for _, p := range j.plans {
			if len(p.checks) == 0 {
				continue
			}
			first[p.checks[0].key] = true
			for _, c := range p.checks[1:] {
				counterparts[c.key] = append(counterparts[c.key], p.checks[0].key)
			}
		}
	}
	now = run[:0:0]
	for _, cd := range run {
		if first[cd.key] || len(counterparts[cd.key]) == 0 {
			now = append(now, cd)
		} else {
			later = append(later, cd)
		}
	}
	return now, later
}

// runCandidates runs the stages: the statements to run and the results
// to compare in one parallel phase, statements first so the longest
// start early (comparing in this goroutine instead would leave the other
// cores idle meanwhile); then the later ones that can still matter, the
// rest marked skipped.
func (v *Verifier) runCandidates(ctx context.Context, st stages, golds map[execKey]goldOut) {
	v.parallel(len(st.run)+len(st.ready), func(i int) {
		if i < len(st.run) {
			v.runCandidate(ctx, st.run[i], golds)
			return
		}
		k := st.ready[i-len(st.run)]
		v.digest(k.cd, k.rs, golds)
	})
	if len(st.later) == 0 {
		return
	}
	var again []*candidate
	for _, cd := range st.later {
		if matchedSomewhere(st.cands, st.counterparts[cd.key]) {
			again = append(again, cd)
		} else {
			cd.skipped = true
		}
	}
	v.parallel(len(again), func(i int) { v.runCandidate(ctx, again[i], golds) })
}

// matchedSomewhere reports whether any of the candidates, or a failure
// that leaves its answers unjudged, could still make an answer correct.
func matchedSomewhere(cands map[execKey]*candidate, keys []execKey) bool {
	for _, k := range keys {
		cd := cands[k]
		if cd == nil || !cd.cause.scored() {
			return true
		}
		for _, gv := range cd.verdicts {
			if gv.vd.Match {
				return true
			}
		}
	}
	return false
}

// runCandidate runs one candidate within the verifier's byte budget: it
// takes the statement's byte cap before running, gives back what the
// result does not use, and the rest once the rows are judged and dropped
// (serve's cache may keep them; its own bound counts them there).
func (v *Verifier) runCandidate(ctx context.Context, cd *candidate, golds map[execKey]goldOut) {
	lim := v.cfg.Limits
	if !cd.readAll {
		lim.StopAfter = cd.stopAfter
	}
	if g := v.cfg.Gate; g != nil {
		leave, err := g.Enter(ctx, cd.key.url)
		if err != nil {
			cd.err, cd.cause = err, causeAbandoned
			return
		}
		defer leave()
	}
	taken, err := v.budget.Acquire(ctx, lim.MaxBytes)
	if err != nil {
		cd.err, cd.cause = err, causeAbandoned
		return
	}
	rs, err := v.exec(ctx, cd.key.url, cd.sql, lim)
	cd.err, cd.cause = err, causeOf(ctx, err)
	var size int64
	if rs != nil {
		size = min(rs.Bytes, taken)
	}
	v.budget.Release(taken - size)
	v.budget.hold(size)
	v.digest(cd, rs, golds)
	if c := v.cfg.Cache; c != nil && cd.cause.memoisable() {
		c.put(cd.key, rs, err, cd.readAll, cd.stopAfter)
	}
	v.budget.hold(-size)
	v.budget.Release(size)
}

// digest judges a candidate's rows against every gold its uses need, in
// the order judgeMode reads them, and keeps a preview when asked: after
// it, nothing needs the rows.
func (v *Verifier) digest(cd *candidate, rs *sqlgym.ResultSet, golds map[execKey]goldOut) {
	if cd.err != nil || rs == nil {
		return
	}
	cd.verdicts = make(verdicts, 0, len(cd.uses))
	for _, u := range cd.uses {
		for _, g := range u.golds {
			k := execKey{u.url, g}
			gr := golds[k]
			if gr.err != nil {
				continue
			}
			pg := v.prepared(k, gr, u.mode, u.task)
			vd, ok := cd.verdicts.of(pg)
			if !ok {
				vd = pg.Compare(rs)
				cd.verdicts = append(cd.verdicts, goldVerdict{pg, vd})
			}
			if vd.Match {
				break
			}
		}
	}
	v.classifyRows(cd, rs, golds)
	v.rowComponents(cd, rs, golds)
	if v.cfg.Previews > 0 {
		cd.preview = sqlgym.NewPreview(rs, v.cfg.Previews)
	}
}

func goldOutOf(ctx context.Context, ge *goldEntry, err error) goldOut {
	out := goldOut{ge: ge, err: err, cause: causeOf(ctx, err)}
	if ge != nil {
		out.rs, out.cause = ge.rs, ge.cause
	}
	return out
}

type goldOut struct {
	rs    *sqlgym.ResultSet
	err   error
	cause cause
	ge    *goldEntry
}

// prepared returns the gold canonicalised for a mode and the task's
// options, made once per gold and kept with the cached gold result: 16
// answers to a task, and every later batch, compare against the same one.
func (v *Verifier) prepared(k execKey, gr goldOut, m compare.Mode, t *sqlgym.Task) *compare.Gold {
	if gr.ge == nil {
		return compare.Prepare(m, gr.rs, modeOptions(m, t, k.sql, v.cfg.Order))
	}
	// Options depend on the mode and the gold, which the entry is for, and
	// in spider2 on the task's settings; deriving them tokenises the gold,
	// so it happens only when the prepared gold is missing.
	pk := prepKey{mode: m}
	if m == compare.Spider2 {
		pk.cols = fmt.Sprint(t.ConditionCols)
		if t.IgnoreOrder != nil {
			pk.ignore = 1
			if *t.IgnoreOrder {
				pk.ignore = 2
			}
		}
	}
	gr.ge.mu.Lock()
	defer gr.ge.mu.Unlock()
	if g, ok := gr.ge.prepared[pk]; ok {
		return g
	}
	g := compare.Prepare(m, gr.rs, modeOptions(m, t, k.sql, v.cfg.Order))
	if gr.ge.prepared == nil {
		gr.ge.prepared = map[prepKey]*compare.Gold{}
	}
	gr.ge.prepared[pk] = g
	return g
}

// prepKey names a gold prepared for one mode and, in spider2, one task's
// settings.
type prepKey struct {
	mode   compare.Mode
	ignore int8 // spider2 ignore_order: 0 unset, 1 false, 2 true
	cols   string
}

// parallel runs fn(0..n-1) on at most Concurrency goroutines.
func (v *Verifier) parallel(n int, fn func(i int)) {
	if n == 0 {
		return
	}
	// Workers claim the next index with an atomic add rather than receive
	// it over a channel: judging is a fraction of a microsecond per
	// answer, less than a channel hand-off and the wake-up it costs.
	workers := min(v.cfg.Concurrency, n)
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				fn(i)
			}
		}()
	}
	wg.Wait()
}

// judge turns the executions into the answer's outcome under each mode.
func (v *Verifier) judge(j *answerJob, golds map[execKey]goldOut, cands map[execKey]*candidate) {
	r := j.res
	if j.fail != nil {
		v.finish(r, j.fail.outcome, j.fail.detail)
		return
	}
	for i, p := range j.plans {
		mv, detail, kind, at := v.judgeMode(j.task, p, golds, cands)
		if i == 0 {
			r.Outcome, r.Reward, r.Why, r.Score, r.Detail, r.ErrorKind = mv.Outcome, mv.Reward, mv.Why, mv.Score, detail, kind
			r.Abandoned = mv.Abandoned
			if at > 0 && mv.Outcome.Scored() && mv.Outcome != sqlgym.OutcomeCorrect {
				// A variant decided: name it, so that a reader does not
				// look for the miss in the original's rows.
				r.Variant = redact.URL(p.checks[at].url)
				r.Detail += " (on variant " + variantName(p.checks[at].url) + ")"
			}
			if v.cfg.Previews > 0 && mv.Outcome != sqlgym.OutcomeCorrect {
				v.attachPreviews(r, p, max(at, 0), golds, cands)
			}
			v.attachFailure(r, p, golds, cands)
			v.attachComponents(r, j, p, golds, cands)
		}
		if v.cfg.AllModes {
			if r.Modes == nil {
				r.Modes = map[string]sqlgym.ModeVerdict{}
			}
			r.Modes[string(p.mode)] = mv
		}
	}
}

// judgeMode judges one mode; at is the check (0 the original, then each
// variant) whose result decided an answer that is not correct, -1 when
// none did.
func (v *Verifier) judgeMode(t *sqlgym.Task, p modePlan, golds map[execKey]goldOut, cands map[execKey]*candidate) (sqlgym.ModeVerdict, string, sqlgym.ErrorKind, int) {
	verdict := func(o sqlgym.Outcome, score float64) sqlgym.ModeVerdict {
		mv := sqlgym.ModeVerdict{Outcome: o, Reward: v.cfg.Rewards.For(o, score)}
		if p.mode == compare.F1 && (o == sqlgym.OutcomeCorrect || o == sqlgym.OutcomeWrong) {
			s := score
			mv.Score = &s
		}
		return mv
	}
	var (
		matchedAll = true
		worst      compare.Verdict
		haveWorst  bool
		bestScore  = 1.0
		firstMiss  = -1
	)
	for ci, c := range p.checks {
		// The golds decide first: a task whose gold fails cannot judge
		// any answer, so even an answer that errors is not scored.
		var usable []string
		var goldFail goldOut
		for _, g := range c.golds {
			if gr := golds[execKey{c.url, g}]; gr.err != nil {
				if goldFail.err == nil {
					goldFail = gr
				}
			} else {
				usable = append(usable, g)
			}
		}
		if len(usable) == 0 {
			if !goldFail.cause.scored() {
				return with(v.notJudged(goldFail.err, goldFail.cause, "gold: "))(-1)
			}
			if ci > 0 {
				// A test-suite variant on which the gold itself fails
				// cannot judge anything: skip it, as the official script
				// would find no reference there.
				continue
			}
			return verdict(sqlgym.OutcomeGoldError, 0), v.goldFailed(goldFail), "", -1
		}
		// Then the candidate's own failure: it is the answer's.
		cd := cands[c.key]
		if cd.skipped {
			continue // wrong on the original already (see run)
		}
		if !cd.cause.scored() {
			return with(v.notJudged(cd.err, cd.cause, ""))(-1)
		}
		if cd.err != nil {
			return with(failVerdict(cd.err, cd.cause, verdict))(ci)
		}
		var best compare.Verdict
		for i, g := range usable {
			vd, _ := cd.verdicts.of(v.prepared(execKey{c.url, g}, golds[execKey{c.url, g}], p.mode, t))
			if i == 0 || vd.Score > best.Score || vd.Match && !best.Match {
				best = vd
			}
			if vd.Match {
				break
			}
		}
		// A gold that did not run for want of the database, or was
		// abandoned, might have been the one this answer matches.
		if !best.Match && goldFail.err != nil && !goldFail.cause.scored() {
			return with(v.notJudged(goldFail.err, goldFail.cause, "gold: "))(-1)
		}
		if !best.Match {
			if matchedAll {
				firstMiss = ci
			}
			matchedAll = false
			if !haveWorst || best.Score < worst.Score {
				worst, haveWorst = best, true
			}
		}
		bestScore = min(bestScore, best.Score)
	}
	if matchedAll {
		return verdict(sqlgym.OutcomeCorrect, 1), "", "", -1
	}
	mv := verdict(sqlgym.OutcomeWrong, bestScore)
	mv.Why = worst.Why
	return mv, "wrong result: " + worst.Why, "", firstMiss
}

// with adds the deciding check's index to a three-value verdict.
func with(mv sqlgym.ModeVerdict, detail string, kind sqlgym.ErrorKind) func(at int) (sqlgym.ModeVerdict, string, sqlgym.ErrorKind, int) {
	return func(at int) (sqlgym.ModeVerdict, string, sqlgym.ErrorKind, int) { return mv, detail, kind, at }
}

// variantName is how a variant database is named in a detail: its file
// or schema name.
func variantName(u string) string {
	loc, err := engine.ParseURL(u)
	switch {
	case err != nil:
		return redact.URL(u)
	case loc.Schema != "":
		return loc.Schema
	case loc.Path != "":
		return filepath.Base(loc.Path)
	}
	return redact.URL(u)
}

// failVerdict is the outcome of a candidate's own failure.
func failVerdict(err error, c cause, verdict func(sqlgym.Outcome, float64) sqlgym.ModeVerdict) (sqlgym.ModeVerdict, string, sqlgym.ErrorKind) {
	switch c {
	case causeSQL:
		var ee *sqlgym.ExecError
		errors.As(err, &ee)
		return verdict(sqlgym.OutcomeError, 0), err.Error(), ee.Kind
	case causeTooLarge:
		return verdict(sqlgym.OutcomeTooLarge, 0), err.Error(), ""
	}
	return verdict(sqlgym.OutcomeTimeout, 0), err.Error(), ""
}

// notJudged is the outcome of an answer nothing can be concluded about:
// the database could not be used after the retries, or the caller's
// context ended first. No reward in every mode, whatever the table says.
func (v *Verifier) notJudged(err error, c cause, what string) (sqlgym.ModeVerdict, string, sqlgym.ErrorKind) {
	mv := sqlgym.ModeVerdict{Outcome: sqlgym.OutcomeInfraError, Reward: v.cfg.Rewards.For(sqlgym.OutcomeInfraError, 0)}
	if c == causeAbandoned {
		mv.Abandoned = true
		return mv, what + "not judged: the caller stopped waiting (deadline or cancellation) before the statement finished: " + err.Error(), ""
	}
	return mv, fmt.Sprintf("%sinfrastructure failure, not scored (tried %d times): %v", what, v.cfg.InfraRetries+1, err), ""
}

// goldFailed says why a gold could not judge: its own error, its result
// past the caps, or its own limits, which are the candidates' scaled by
// sqlgym.GoldFactor.
func (v *Verifier) goldFailed(gr goldOut) string {
	switch gr.cause {
	case causeBudget, causeClock:
		gl := v.cfg.Limits.GoldLimits()
		return fmt.Sprintf("gold query over its own limits (the candidates' x%d: %d VM steps on SQLite, %v elsewhere): %v",
			sqlgym.GoldFactor, gl.VMSteps, gl.Timeout, gr.err)
	}
	return "gold query failed: " + gr.err.Error()
}

// modeOptions derives a comparison's options from the gold and the task.
func modeOptions(m compare.Mode, t *sqlgym.Task, gold string, order compare.OrderPolicy) compare.Options {
	o := compare.Options{Order: order}
	switch m {
	case compare.Multiset, compare.Strict:
		o.GoldOrdered = sqltext.HasTopLevelOrderBy(gold)
	case compare.TestSuite:
		o.GoldOrdered = sqltext.ContainsOrderByQuirk(gold)
	case compare.Spider2:
		o.ConditionCols = t.ConditionCols
		if t.IgnoreOrder != nil {
			o.IgnoreOrder = *t.IgnoreOrder
		} else {
			o.IgnoreOrder = !sqltext.HasTopLevelOrderBy(gold)
		}
	}
	return o
}
