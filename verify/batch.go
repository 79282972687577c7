package verify

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/sqltext"
	"github.com/sqlgym/sqlgym/verify/compare"
)

// answerJob is an answer with SQL to run, and what each mode needs of it.
type answerJob struct {
	res   *Result
	task  *sqlgym.Task
	sql   string
	plans []modePlan
	// fail is set when the answer's verdict was decided before comparing
	// (a database that does not resolve).
	fail *failure
}

type failure struct {
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

// candidate is one distinct statement of the batch.
type candidate struct {
	key       execKey
	sql       string
	stopAfter int // 0: read everything
	readAll   bool
	rs        *sqlgym.ResultSet
	err       error

	// verdicts memoises comparisons: the answers that share this
	// candidate share its verdict against a prepared gold.
	mu       sync.Mutex
	verdicts map[*compare.Gold]compare.Verdict
}

func (cd *candidate) compare(g *compare.Gold) compare.Verdict {
	cd.mu.Lock()
	vd, ok := cd.verdicts[g]
	cd.mu.Unlock()
	if ok {
		return vd
	}
	vd = g.Compare(cd.rs)
	cd.mu.Lock()
	if cd.verdicts == nil {
		cd.verdicts = map[*compare.Gold]compare.Verdict{}
	}
	cd.verdicts[g] = vd
	cd.mu.Unlock()
	return vd
}

func (v *Verifier) run(ctx context.Context, jobs []*answerJob) {
	urls := map[string][]string{} // task DB name -> variant URLs (first is the database itself)
	urlErr := map[string]error{}
	variantsOf := func(t *sqlgym.Task, testsuite bool) ([]string, error) {
		key := t.DB
		if testsuite {
			key = "\x00ts\x00" + t.DB
		}
		if u, ok := urls[key]; ok || urlErr[key] != nil {
			return u, urlErr[key]
		}
		var us []string
		var err error
		switch {
		case !testsuite:
			var u string
			u, err = v.dbs.Resolve(t.DB)
			us = []string{u}
		case len(t.DBVariants) > 0:
			var u string
			u, err = v.dbs.Resolve(t.DB)
			us = []string{u}
			for _, name := range t.DBVariants {
				if err != nil {
					break
				}
				var vu string
				vu, err = v.dbs.Resolve(name)
				if vu != u {
					us = append(us, vu)
				}
			}
		default:
			us, err = v.dbs.Variants(t.DB)
		}
		if err != nil {
			urlErr[key] = err
			return nil, err
		}
		urls[key] = us
		return us, nil
	}

	// Plan every answer under every mode. Normalising is tokenising: do it
	// once per distinct text in the batch.
	norm := map[string]string{}
	normalize := func(q string) string {
		n, ok := norm[q]
		if !ok {
			n = sqltext.Normalize(q)
			norm[q] = n
		}
		return n
	}
	for _, j := range jobs {
		for _, m := range v.modes() {
			ts := m == compare.TestSuite
			us, err := variantsOf(j.task, ts)
			if err != nil {
				j.fail = &failure{sqlgym.OutcomeGoldError, fmt.Sprintf("database %q: %v", j.task.DB, err)}
				break
			}
			p := modePlan{mode: m}
			golds := j.task.Golds()
			pred := j.sql
			// Both queries as the official test-suite evaluation rewrites
			// them before running them (see sqltext.TestSuitePred).
			if ts {
				pred = sqltext.TestSuitePred(pred, v.cfg.KeepDistinct)
				gs := make([]string, len(golds))
				for i, g := range golds {
					gs[i] = sqltext.TestSuiteGold(g, v.cfg.KeepDistinct)
				}
				golds = gs
			}
			for _, u := range us {
				p.checks = append(p.checks, variantCheck{url: u, golds: golds, pred: pred, key: execKey{u, normalize(pred)}})
			}
			j.plans = append(j.plans, p)
		}
	}

	// Golds first: the candidates' row budgets depend on them.
	var goldKeys []execKey
	seenGold := map[execKey]bool{}
	for _, j := range jobs {
		for _, p := range j.plans {
			for _, c := range p.checks {
				for _, g := range c.golds {
					k := execKey{c.url, g}
					if !seenGold[k] {
						seenGold[k] = true
						goldKeys = append(goldKeys, k)
					}
				}
			}
		}
	}
	goldRes := make(map[execKey]goldOut, len(goldKeys))
	var mu sync.Mutex
	v.parallel(len(goldKeys), func(i int) {
		k := goldKeys[i]
		rs, ge, err := v.gold(ctx, k.url, k.sql)
		mu.Lock()
		goldRes[k] = goldOut{rs, err, ge}
		mu.Unlock()
	})

	// Distinct candidates, each with the largest row budget any use needs.
	cands := map[execKey]*candidate{}
	var order []*candidate
	for _, j := range jobs {
		for _, p := range j.plans {
			for _, c := range p.checks {
				cd := cands[c.key]
				if cd == nil {
					cd = &candidate{key: c.key, sql: c.pred}
					cands[c.key] = cd
					order = append(order, cd)
				}
				for _, g := range c.golds {
					gr := goldRes[execKey{c.url, g}]
					if gr.err != nil {
						continue
					}
					n := compare.StopAfter(p.mode, gr.rs)
					if n <= 0 {
						cd.readAll = true
					} else if n > cd.stopAfter {
						cd.stopAfter = n
					}
				}
			}
		}
	}
	if c := v.cfg.Cache; c != nil {
		// Statements an earlier batch ran need not run again.
		run := order[:0:0]
		for _, cd := range order {
			if rs, err, ok := c.get(cd.key, cd.readAll, cd.stopAfter); ok {
				cd.rs, cd.err = rs, err
			} else {
				run = append(run, cd)
			}
		}
		order = run
	}
	v.parallel(len(order), func(i int) {
		cd := order[i]
		defer func() {
			if c := v.cfg.Cache; c != nil {
				c.put(cd.key, cd.rs, cd.err, cd.readAll, cd.stopAfter)
			}
		}()
		lim := v.cfg.Limits
		if !cd.readAll {
			lim.StopAfter = cd.stopAfter
		}
		cd.rs, cd.err = v.retryInfra(ctx, func() (*sqlgym.ResultSet, error) {
			eng, err := v.dbs.EngineURL(ctx, cd.key.url)
			if err != nil {
				return nil, &sqlgym.InfraError{Err: err}
			}
			return eng.Query(ctx, cd.sql, lim)
		})
	})

	// Judging reads the finished maps only, so answers are judged in
	// parallel too.
	v.parallel(len(jobs), func(i int) { v.judge(jobs[i], goldRes, cands) })
}

type goldOut struct {
	rs  *sqlgym.ResultSet
	err error
	ge  *goldEntry
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
	workers := min(v.cfg.Concurrency, n)
	next := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				fn(i)
			}
		}()
	}
	for i := 0; i < n; i++ {
		next <- i
	}
	close(next)
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
		mv, detail, kind := v.judgeMode(j.task, p, golds, cands)
		if i == 0 {
			r.Outcome, r.Reward, r.Why, r.Score, r.Detail, r.ErrorKind = mv.Outcome, mv.Reward, mv.Why, mv.Score, detail, kind
			if v.cfg.Previews > 0 && mv.Outcome != sqlgym.OutcomeCorrect {
				v.attachPreviews(r, p, golds, cands)
			}
		}
		if v.cfg.AllModes {
			if r.Modes == nil {
				r.Modes = map[string]ModeVerdict{}
			}
			r.Modes[string(p.mode)] = mv
		}
	}
}

func (v *Verifier) judgeMode(t *sqlgym.Task, p modePlan, golds map[execKey]goldOut, cands map[execKey]*candidate) (ModeVerdict, string, sqlgym.ErrorKind) {
	verdict := func(o sqlgym.Outcome, score float64) ModeVerdict {
		mv := ModeVerdict{Outcome: o, Reward: v.cfg.Rewards.For(o, score)}
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
	)
	for ci, c := range p.checks {
		// The golds decide first: a task whose gold fails cannot judge
		// any answer, so even an answer that errors is not scored.
		var usable []string
		var goldErr error
		for _, g := range c.golds {
			if gr := golds[execKey{c.url, g}]; gr.err != nil {
				if goldErr == nil {
					goldErr = gr.err
				}
			} else {
				usable = append(usable, g)
			}
		}
		if len(usable) == 0 {
			if ci > 0 && !isInfra(goldErr) {
				// A test-suite variant on which the gold itself fails
				// cannot judge anything: skip it, as the official script
				// would find no reference there.
				continue
			}
			if isInfra(goldErr) {
				return verdict(sqlgym.OutcomeInfraError, 0), "gold: " + goldErr.Error(), ""
			}
			return verdict(sqlgym.OutcomeGoldError, 0), "gold query failed: " + goldErr.Error(), ""
		}
		// Then the candidate's own failure: it is the answer's.
		cd := cands[c.key]
		if cd.err != nil {
			return failVerdict(cd.err, verdict)
		}
		var best compare.Verdict
		for i, g := range usable {
			vd := cd.compare(v.prepared(execKey{c.url, g}, golds[execKey{c.url, g}], p.mode, t))
			if i == 0 || vd.Score > best.Score || vd.Match && !best.Match {
				best = vd
			}
			if vd.Match {
				break
			}
		}
		if !best.Match {
			matchedAll = false
			if !haveWorst || best.Score < worst.Score {
				worst, haveWorst = best, true
			}
		}
		bestScore = min(bestScore, best.Score)
	}
	if matchedAll {
		return verdict(sqlgym.OutcomeCorrect, 1), "", ""
	}
	mv := verdict(sqlgym.OutcomeWrong, bestScore)
	mv.Why = worst.Why
	return mv, "wrong result: " + worst.Why, ""
}

func failVerdict(err error, verdict func(sqlgym.Outcome, float64) ModeVerdict) (ModeVerdict, string, sqlgym.ErrorKind) {
	var ee *sqlgym.ExecError
	switch {
	case errors.As(err, &ee):
		return verdict(sqlgym.OutcomeError, 0), err.Error(), ee.Kind
	case errors.Is(err, sqlgym.ErrTimeout):
		return verdict(sqlgym.OutcomeTimeout, 0), err.Error(), ""
	case errors.Is(err, sqlgym.ErrTooLarge):
		return verdict(sqlgym.OutcomeTooLarge, 0), err.Error(), ""
	}
	return verdict(sqlgym.OutcomeInfraError, 0), err.Error(), ""
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
