package verify

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/failure"
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

	// cands are the distinct candidates its plans use; waiting counts
	// those not done yet. The worker that finishes the last one judges
	// the answer (judged), so judging needs no phase of its own.
	cands   []*candidate
	waiting atomic.Int32
	judged  bool
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
	preview   *Preview
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

	// jobs are the answers that use it, each once (see answerJob.cands).
	jobs []*answerJob

	// early is set by the planner when the candidate started before the
	// batch was planned (batch.start): whichever of its worker and
	// finish comes second settles its result.
	early bool
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

// batch is one VerifyBatch in progress. Answers are planned as they come
// (add), and a candidate whose golds are known starts on a worker at once,
// so statements run while the rest of the batch is planned: planning on
// one core while the others waited was most of what the verifier added to
// a batch of small statements. finish completes the plan, settles the
// candidates that started early and runs the rest; the verdicts are those
// of planning everything first.
type batch struct {
	v    *Verifier
	ctx  context.Context
	jobs []*answerJob

	urls   map[string][]string // task DB name -> variant URLs (first is the database itself)
	urlErr map[string]error
	norm   map[normKey]string

	// goldRes holds the golds known so far: the ones the verifier keeps
	// are taken at once (memo.Map.Peek), the others run on the workers
	// (pending) and join it in finish. Until then only the planner
	// touches it; afterwards it is read-only.
	goldRes    map[execKey]goldOut
	goldByText map[execKey]goldOut // an answer with a gold's key is that gold
	pending    []*pendingGold
	pendingAt  map[execKey]bool
	goldsDone  sync.WaitGroup

	cands map[execKey]*candidate
	order []*candidate
	modes []compare.Mode

	work    chan func()
	workers sync.WaitGroup

	mu sync.Mutex
	// planned is set by finish once every use and row budget is known;
	// parked holds the early starts that finished before, with their
	// rows, for finish to settle.
	planned bool
	parked  []parkedRun
}

type parkedRun struct {
	cd *candidate
	er *execResult
}

// pendingGold is a gold not kept yet, waited for on a goroutine of its
// own (the runs are bounded by Config.GoldRuns).
type pendingGold struct {
	key execKey
	out goldOut
}

type normKey struct {
	d sqlgym.Dialect
	q string
}

func (v *Verifier) newBatch(ctx context.Context, answers int) *batch {
	// Sizes for a GRPO batch, where about a third of the answers are
	// distinct: growing these maps showed in the profile.
	n := answers/3 + 8
	return &batch{
		v: v, ctx: ctx,
		urls: map[string][]string{}, urlErr: map[string]error{},
		norm:    make(map[normKey]string, n),
		goldRes: map[execKey]goldOut{}, goldByText: map[execKey]goldOut{}, pendingAt: map[execKey]bool{},
		cands: make(map[execKey]*candidate, n), modes: v.modes(),
		jobs: make([]*answerJob, 0, n),
	}
}

func (b *batch) variantsOf(t *sqlgym.Task, testsuite bool) ([]string, error) {
	v := b.v
	key := t.DB
	testsuite = testsuite || v.cfg.Variants
	if testsuite {
		key = "\x00ts\x00" + t.DB
	}
	if u, ok := b.urls[key]; ok || b.urlErr[key] != nil {
		return u, b.urlErr[key]
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
		b.urlErr[key] = err
		return nil, err
	}
	b.urls[key] = us
	return us, nil
}

// normalize keys a candidate (for the batch and the cache) by its
// engine's own rules, so that texts merge only where that engine reads
// the same statement: once per distinct text and dialect in the batch.
func (b *batch) normalize(u, q string) string {
	k := normKey{sqlgym.URLDialect(u), q}
	n, ok := b.norm[k]
	if !ok {
		n = sqltext.Key(k.d, q)
		b.norm[k] = n
	}
	return n
}

// add plans an answer under every mode, asks for the golds it needs and
// records its candidates, starting those that can start.
func (b *batch) add(j *answerJob) {
	v := b.v
	b.jobs = append(b.jobs, j)
	for _, m := range b.modes {
		ts := m == compare.TestSuite
		us, err := b.variantsOf(j.task, ts)
		if err != nil {
			j.fail = &earlyFail{sqlgym.OutcomeGoldError, fmt.Sprintf("database %q: %v", j.task.DB, err)}
			break
		}
		p := modePlan{mode: m}
		pred := j.sql
		// Both queries as the official test-suite evaluation rewrites
		// them before running them (see sqltext.TestSuitePred).
		if ts {
			pred = sqltext.TestSuitePred(pred, v.cfg.KeepDistinct)
		}
		for _, u := range us {
			// Each database runs the gold written for its engine
			// (Task.GoldByDialect), so one task set serves a database
			// loaded into several engines.
			golds := j.task.GoldsFor(sqlgym.URLDialect(u))
			if ts {
				for i, g := range golds {
					golds[i] = sqltext.TestSuiteGold(g, v.cfg.KeepDistinct)
				}
			}
			p.checks = append(p.checks, variantCheck{url: u, golds: golds, pred: pred, key: execKey{u, b.normalize(u, pred)}})
		}
		j.plans = append(j.plans, p)
	}
	for _, p := range j.plans {
		for ci, c := range p.checks {
			for _, g := range c.golds {
				b.askGold(execKey{c.url, g})
			}
			b.use(j, p.mode, ci, c)
		}
	}
}

// askGold makes sure the gold will be known by finish: at once when the
// verifier keeps it, else from a goroutine that waits for its run. Not a
// worker: workers may wait for memory budget that only finish frees, and
// finish waits for the golds.
func (b *batch) askGold(k execKey) {
	if _, ok := b.goldRes[k]; ok || b.pendingAt[k] {
		return
	}
	if ge, err, ok := b.v.golds.Peek(k); ok {
		b.knowGold(k, goldOutOf(b.ctx, ge, err))
		return
	}
	b.pendingAt[k] = true
	pg := &pendingGold{key: k}
	b.pending = append(b.pending, pg)
	b.goldsDone.Add(1)
	go func() {
		defer b.goldsDone.Done()
		ge, err := b.v.gold(b.ctx, k.url, k.sql)
		pg.out = goldOutOf(b.ctx, ge, err)
	}()
}

func (b *batch) knowGold(k execKey, out goldOut) {
	b.goldRes[k] = out
	// A gold without an error has its entry (v.gold returns none only
	// with an error), which keys its text once.
	if out.err == nil {
		b.goldByText[execKey{k.url, out.ge.key(k.url, k.sql)}] = out
	}
}

func goldOutOf(ctx context.Context, ge *goldEntry, err error) goldOut {
	out := goldOut{ge: ge, err: err, cause: causeOf(ctx, err)}
	if ge != nil {
		out.rs, out.cause = ge.rs, ge.cause
	}
	return out
}

// use records that an answer is judged on a candidate under a mode, on the
// check's database, creating the candidate on its first use.
func (b *batch) use(j *answerJob, m compare.Mode, ci int, c variantCheck) {
	cd := b.cands[c.key]
	fresh := cd == nil
	if fresh {
		cd = &candidate{key: c.key, sql: c.pred}
		b.cands[c.key] = cd
		b.order = append(b.order, cd)
	}
	cd.rerun = cd.rerun || j.rerun
	if !slices.Contains(j.cands, cd) {
		j.cands = append(j.cands, cd)
		j.waiting.Add(1)
		cd.jobs = append(cd.jobs, j)
	}
	// Each (mode, task, variant) once: a scan, as a candidate has few
	// uses (a statement shared by many tasks has one per task).
	if !slices.ContainsFunc(cd.uses, func(u candUse) bool { return u.mode == m && u.task == j.task && u.url == c.url }) {
		cd.uses = append(cd.uses, candUse{m, j.task, c.url, c.golds})
	}
	// Only a statement on an answer's first database may start before the
	// plan is complete: under Config.Variants the others may wait for it.
	if fresh && ci == 0 {
		b.start(cd, m, c)
	}
}

// start runs a new candidate on a worker now when its golds are known,
// with the row budget its first use needs. Later uses may need more
// rows; settle then decides whether the result still serves.
func (b *batch) start(cd *candidate, m compare.Mode, c variantCheck) {
	if _, ok := b.goldByText[cd.key]; ok && !cd.rerun {
		return // judged on the gold's result, once planned
	}
	var readAll bool
	var stopAfter int
	for _, g := range c.golds {
		gr, ok := b.goldRes[execKey{c.url, g}]
		if !ok {
			return // the budget waits for the gold
		}
		if gr.err != nil {
			continue
		}
		if n := compare.StopAfter(m, gr.rs); n <= 0 {
			readAll = true
		} else {
			stopAfter = max(stopAfter, n)
		}
	}
	cd.early = b.trySubmit(func() {
		er := b.v.execEarly(b.ctx, cd, readAll, stopAfter)
		b.mu.Lock()
		if !b.planned {
			b.parked = append(b.parked, parkedRun{cd, er})
			b.mu.Unlock()
			return
		}
		b.mu.Unlock()
		if b.settle(cd, er) {
			b.v.reuseOrRun(b.ctx, cd, b.goldRes)
		}
		b.done(cd)
	})
}

// trySubmit hands work to the batch's workers, started on first use,
// unless their queue is full: the planner must never wait for a worker,
// which may be waiting for memory budget that parked results hold until
// finish.
func (b *batch) trySubmit(f func()) bool {
	b.startWorkers()
	select {
	case b.work <- f:
		return true
	default:
		return false
	}
}

// submit hands work to the workers, waiting while their queue is full:
// for finish, once nothing a worker waits for depends on the caller.
func (b *batch) submit(f func()) {
	b.startWorkers()
	b.work <- f
}

func (b *batch) startWorkers() {
	if b.work == nil {
		b.work = make(chan func(), 2*cap(b.jobs)+16)
		for range b.v.cfg.Concurrency {
			b.workers.Add(1)
			go func() {
				defer b.workers.Done()
				for f := range b.work {
					f()
				}
			}()
		}
	}
}

// settle gives an early start's result to its candidate once the batch is
// planned, as if the candidate had run under its final row budget. It
// reports whether the candidate must run again, its result dropped: the
// row budget grew after it started and the result was cut short by it.
func (b *batch) settle(cd *candidate, er *execResult) bool {
	v := b.v
	if gr, ok := b.goldByText[cd.key]; ok && !cd.rerun {
		// A gold's text after all, of a task planned after it started:
		// judged on the gold's result like every such answer.
		er.drop(v.budget)
		v.digest(cd, gr.rs, b.goldRes)
		return false
	}
	if !er.serves(cd) {
		er.drop(v.budget)
		return true
	}
	v.complete(cd, er, b.goldRes)
	return false
}

// finish completes the plan once every answer is added, runs what has not
// run, and judges.
func (b *batch) finish() {
	v, ctx := b.v, b.ctx
	b.goldsDone.Wait()
	for _, pg := range b.pending {
		b.knowGold(pg.key, pg.out)
	}
	goldRes := b.goldRes
	// Each candidate gets the largest row budget any use needs.
	for _, cd := range b.order {
		for _, u := range cd.uses {
			for _, g := range u.golds {
				gr := goldRes[execKey{u.url, g}]
				if gr.err != nil {
					continue
				}
				if n := compare.StopAfter(u.mode, gr.rs); n <= 0 {
					cd.readAll = true
				} else if n > cd.stopAfter {
					cd.stopAfter = n
				}
			}
		}
	}
	// Candidates with a result already (a gold's, or serve's cache) are
	// only compared; the rest run, statements first so the longest start
	// early.
	run := b.order[:0:0]
	type known struct {
		cd *candidate
		rs *sqlgym.ResultSet
	}
	var ready []known
	for _, cd := range b.order {
		if cd.early {
			continue
		}
		if gr, ok := b.goldByText[cd.key]; ok && !cd.rerun {
			ready = append(ready, known{cd, gr.rs})
			continue
		}
		if c := v.cfg.Cache; c != nil {
			// Statements an earlier batch ran need not run again.
			if rs, err, ok := c.get(cd.key, cd.readAll, cd.stopAfter); ok {
				cd.err, cd.cause = err, causeOf(context.Background(), err)
				ready = append(ready, known{cd, rs})
				continue
			}
		}
		run = append(run, cd)
	}
	// Under Config.Variants an answer must match on the original and on
	// every variant, so a statement runs on the variants only after it
	// matched on the original: most wrong answers then cost one run, not
	// one per variant. F1's partial credit is the least score over all
	// databases, so it needs every run. (Early starts are all on an
	// original.)
	var later []*candidate
	counterparts := map[execKey][]execKey{}
	if v.cfg.Variants && !slices.Contains(v.modes(), compare.F1) {
		first := map[execKey]bool{}
		for _, j := range b.jobs {
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
		now := run[:0:0]
		for _, cd := range run {
			if first[cd.key] || len(counterparts[cd.key]) == 0 {
				now = append(now, cd)
			} else {
				later = append(later, cd)
			}
		}
		run = now
	}
	// The early starts that finished are settled here, before anything
	// more is queued: they hold their rows' bytes, which workers may be
	// waiting for. The others settle on their worker when they finish.
	b.mu.Lock()
	b.planned = true
	parked := b.parked
	b.parked = nil
	b.mu.Unlock()
	var again, settled []*candidate
	for _, p := range parked {
		if b.settle(p.cd, p.er) {
			again = append(again, p.cd)
		} else {
			settled = append(settled, p.cd)
		}
	}
	for _, cd := range again {
		b.submit(func() { v.reuseOrRun(ctx, cd, goldRes); b.done(cd) })
	}
	for _, cd := range run {
		b.submit(func() { v.runCandidate(ctx, cd, goldRes); b.done(cd) })
	}
	for _, k := range ready {
		b.submit(func() { v.digest(k.cd, k.rs, goldRes); b.done(k.cd) })
	}
	// The answers they complete are judged on the workers, in a few
	// items: judging here would leave the workers idle at the end.
	var toJudge []*answerJob
	for _, cd := range settled {
		toJudge = b.doneLater(cd, toJudge)
	}
	for len(toJudge) > 0 {
		n := min(len(toJudge), 16)
		part := toJudge[:n]
		toJudge = toJudge[n:]
		b.submit(func() {
			for _, j := range part {
				b.judge(j)
			}
		})
	}
	if b.work != nil {
		close(b.work)
		b.workers.Wait()
	}
	if len(later) > 0 {
		var again []*candidate
		for _, cd := range later {
			if matchedSomewhere(b.cands, counterparts[cd.key]) {
				again = append(again, cd)
			} else {
				cd.skipped = true
			}
		}
		v.parallel(len(again), func(i int) { v.runCandidate(ctx, again[i], goldRes) })
	}

	// What is left to judge: answers that waited for a variant's run or
	// skip, and answers with no candidate.
	var left []*answerJob
	for _, j := range b.jobs {
		if !j.judged {
			left = append(left, j)
		}
	}
	v.parallel(len(left), func(i int) { v.judge(left[i], goldRes, b.cands) })
}

// done records that a candidate's verdicts are final, and judges the
// answers that waited for it last.
func (b *batch) done(cd *candidate) {
	for _, j := range cd.jobs {
		if j.waiting.Add(-1) == 0 {
			b.judge(j)
		}
	}
}

// doneLater is done for the caller: it returns the answers to judge
// appended to js instead of judging them.
func (b *batch) doneLater(cd *candidate, js []*answerJob) []*answerJob {
	for _, j := range cd.jobs {
		if j.waiting.Add(-1) == 0 {
			js = append(js, j)
		}
	}
	return js
}

func (b *batch) judge(j *answerJob) {
	b.v.judge(j, b.goldRes, b.cands)
	j.judged = true
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

// execResult is one run of a candidate under a row budget, or its result
// from serve's cache.
type execResult struct {
	rs    *sqlgym.ResultSet
	err   error
	cause cause
	// The row budget it was read with.
	readAll   bool
	stopAfter int
	// size is the result's bytes held against the verifier's budget
	// until the rows are judged.
	size   int64
	cached bool
}

// serves reports whether the result is what running the candidate under
// its final row budget would give: the same budget, or every row read.
func (er *execResult) serves(cd *candidate) bool {
	if er.readAll == cd.readAll && (cd.readAll || er.stopAfter == cd.stopAfter) {
		return true
	}
	return er.err == nil && er.rs != nil && !er.rs.Capped
}

// drop gives the result's bytes back to the budget.
func (er *execResult) drop(b *ByteBudget) {
	b.hold(-er.size)
	b.Release(er.size)
}

func (v *Verifier) limitsFor(readAll bool, stopAfter int) sqlgym.Limits {
	lim := v.cfg.Limits
	if !readAll {
		lim.StopAfter = stopAfter
	}
	return lim
}

// execEarly is an early start: serve's cache, else a run under the row
// budget known so far.
func (v *Verifier) execEarly(ctx context.Context, cd *candidate, readAll bool, stopAfter int) *execResult {
	if c := v.cfg.Cache; c != nil {
		if rs, err, ok := c.get(cd.key, readAll, stopAfter); ok {
			return &execResult{rs: rs, err: err, cause: causeOf(context.Background(), err), readAll: readAll, stopAfter: stopAfter, cached: true}
		}
	}
	lim := v.limitsFor(readAll, stopAfter)
	taken, err := v.budget.Acquire(ctx, lim.MaxBytes)
	if err != nil {
		return &execResult{err: err, cause: causeAbandoned, readAll: readAll, stopAfter: stopAfter}
	}
	return v.execHeld(ctx, cd, lim, taken, readAll, stopAfter)
}

// execHeld runs the candidate with taken bytes of budget, giving back
// what the result does not use.
func (v *Verifier) execHeld(ctx context.Context, cd *candidate, lim sqlgym.Limits, taken int64, readAll bool, stopAfter int) *execResult {
	rs, err := v.exec(ctx, cd.key.url, cd.sql, lim)
	er := &execResult{rs: rs, err: err, cause: causeOf(ctx, err), readAll: readAll, stopAfter: stopAfter}
	if rs != nil {
		er.size = min(rs.Bytes, taken)
	}
	v.budget.Release(taken - er.size)
	v.budget.hold(er.size)
	return er
}

// complete gives the candidate its result, judges the rows, keeps them in
// serve's cache when they may be kept, and frees their bytes (the cache's
// own bound counts them there).
func (v *Verifier) complete(cd *candidate, er *execResult, golds map[execKey]goldOut) {
	cd.err, cd.cause = er.err, er.cause
	v.digest(cd, er.rs, golds)
	if c := v.cfg.Cache; c != nil && !er.cached && cd.cause.memoisable() {
		c.put(cd.key, er.rs, er.err, er.readAll, er.stopAfter)
	}
	er.drop(v.budget)
}

// runCandidate runs one candidate under its final row budget within the
// verifier's byte budget: it takes the statement's byte cap before
// running and gives it back as complete says.
func (v *Verifier) runCandidate(ctx context.Context, cd *candidate, golds map[execKey]goldOut) {
	lim := v.limitsFor(cd.readAll, cd.stopAfter)
	taken, err := v.budget.Acquire(ctx, lim.MaxBytes)
	if err != nil {
		cd.err, cd.cause = err, causeAbandoned
		return
	}
	v.complete(cd, v.execHeld(ctx, cd, lim, taken, cd.readAll, cd.stopAfter), golds)
}

// reuseOrRun is a candidate whose early start did not serve: serve's
// cache under its final budget, else a run.
func (v *Verifier) reuseOrRun(ctx context.Context, cd *candidate, golds map[execKey]goldOut) {
	if c := v.cfg.Cache; c != nil {
		if rs, err, ok := c.get(cd.key, cd.readAll, cd.stopAfter); ok {
			v.complete(cd, &execResult{rs: rs, err: err, cause: causeOf(context.Background(), err), cached: true}, golds)
			return
		}
	}
	v.runCandidate(ctx, cd, golds)
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
	if v.cfg.Previews > 0 {
		cd.preview = NewPreview(rs, v.cfg.Previews)
	}
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
		mv, detail, kind := v.judgeMode(j.task, p, golds, cands)
		if i == 0 {
			r.Outcome, r.Reward, r.Why, r.Score, r.Detail, r.ErrorKind = mv.Outcome, mv.Reward, mv.Why, mv.Score, detail, kind
			if v.cfg.Previews > 0 && mv.Outcome != sqlgym.OutcomeCorrect {
				v.attachPreviews(r, p, golds, cands)
			}
			v.attachFailure(r, p, golds, cands)
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
				return v.notJudged(goldFail.err, goldFail.cause, "gold: ")
			}
			if ci > 0 {
				// A test-suite variant on which the gold itself fails
				// cannot judge anything: skip it, as the official script
				// would find no reference there.
				continue
			}
			return verdict(sqlgym.OutcomeGoldError, 0), v.goldFailed(goldFail), ""
		}
		// Then the candidate's own failure: it is the answer's.
		cd := cands[c.key]
		if cd.skipped {
			continue // wrong on the original already (see run)
		}
		if !cd.cause.scored() {
			return v.notJudged(cd.err, cd.cause, "")
		}
		if cd.err != nil {
			return failVerdict(cd.err, cd.cause, verdict)
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
			return v.notJudged(goldFail.err, goldFail.cause, "gold: ")
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

// failVerdict is the outcome of a candidate's own failure.
func failVerdict(err error, c cause, verdict func(sqlgym.Outcome, float64) ModeVerdict) (ModeVerdict, string, sqlgym.ErrorKind) {
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
func (v *Verifier) notJudged(err error, c cause, what string) (ModeVerdict, string, sqlgym.ErrorKind) {
	mv := ModeVerdict{Outcome: sqlgym.OutcomeInfraError, Reward: v.cfg.Rewards.For(sqlgym.OutcomeInfraError, 0)}
	if c == causeAbandoned {
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
