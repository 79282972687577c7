package report

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/sqlgym/sqlgym/stats"
)

// CompareOptions are a comparison's settings.
type CompareOptions struct {
	// ClusterByDB resamples whole databases instead of tasks, for tasks
	// that share a database and so are not independent.
	ClusterByDB bool
	// AllowMismatch pairs runs whose task sets, tasks hashes, database
	// digests or modes differ, on their common tasks, instead of refusing.
	AllowMismatch bool
	// Criterion is a pre-registered bar on the pass@1 difference.
	Criterion *stats.Criterion
}

// Mismatch is one way two runs differ that makes their numbers not
// comparable.
type Mismatch struct {
	What  string `json:"what"` // "task set", "tasks hash", "database digests", "mode"
	RunA  string `json:"run_a"`
	RunB  string `json:"run_b"`
	A     string `json:"a"`
	B     string `json:"b"`
	Sides string `json:"sides"` // "base/treat", "base/base", ...
}

func (m Mismatch) String() string {
	return fmt.Sprintf("%s %s and %s differ in %s (%s vs %s)", m.Sides, m.RunA, m.RunB, m.What, m.A, m.B)
}

// MismatchError refuses a comparison of runs that differ in more than
// their treatment.
type MismatchError struct{ Mismatches []Mismatch }

func (e *MismatchError) Error() string {
	var s []string
	for _, m := range e.Mismatches {
		s = append(s, m.String())
	}
	return "runs are not comparable: " + strings.Join(s, "; ")
}

// Side describes one side of a comparison.
type Side struct {
	Runs   []string `json:"runs"`
	Models []string `json:"models,omitempty"`
	// Pass1 is the side's pass@1 over the paired tasks (each task's rate
	// averaged over the side's runs).
	Pass1 float64 `json:"pass@1"`
}

// TaskChange is one paired task's averaged rate on each side.
type TaskChange struct {
	ID    string  `json:"id"`
	DB    string  `json:"db,omitempty"`
	Base  float64 `json:"base"`
	Treat float64 `json:"treat"`
}

// DBDelta is pass@1 on each side over one database's paired tasks.
type DBDelta struct {
	DB    string  `json:"db"`
	Tasks int     `json:"tasks"`
	Base  float64 `json:"base"`
	Treat float64 `json:"treat"`
}

// Comparison is a paired comparison of a treatment with a baseline.
type Comparison struct {
	Base  Side `json:"base"`
	Treat Side `json:"treat"`
	// Tasks is the number of paired tasks: those every run scored.
	// Dropped counts tasks some run lacks (possible only with
	// AllowMismatch, or when a task's samples all failed to be scored).
	Tasks   int `json:"tasks"`
	Dropped int `json:"dropped_tasks"`
	// Unscored counts tasks every run has but some run scored no sample of
	// (their gold failed, or every sample was an infrastructure error):
	// left out too, but not for want of being shared.
	Unscored   int        `json:"unscored_tasks"`
	Mismatches []Mismatch `json:"mismatches,omitempty"`
	// Ablation names what differs between the sides by design, beside the
	// model: the prompt's schema (full against linked).
	Ablation string `json:"ablation,omitempty"`
	Cluster  string `json:"cluster,omitempty"`
	// Metrics holds pass@1 first: the per-task rates c/n averaged over each
	// side's runs. Then, when k > 1, pass@k and pass^k: the per-task
	// unbiased estimates (k the smallest k of all runs, over tasks with at
	// least k scored samples in every run, averaged over runs).
	Metrics []MetricDelta `json:"metrics"`
	K       int           `json:"k"`
	// PValue is the headline p-value of the pass@1 difference: exact
	// McNemar when every per-task rate is 0 or 1 on both sides and each
	// side is one run, else the sign-flip permutation test.
	PValue  float64       `json:"p_value"`
	PMethod string        `json:"p_method"`
	Verdict stats.Verdict `json:"verdict"`
	// Decision says what decides the verdict (the interval) and, when the
	// p-value points the other way, that and why.
	Decision string `json:"decision"`
	// Unreplicated is set when a side is a single run: the interval then
	// covers task sampling but not the run-to-run noise of sampling.
	Unreplicated bool   `json:"unreplicated"`
	Criterion    string `json:"criterion,omitempty"`
	CriterionMet *bool  `json:"criterion_met,omitempty"`
	// CriterionWhy says why a bar the estimate meets still fails.
	CriterionWhy string `json:"criterion_why,omitempty"`
	// Improved, Worsened and Unchanged count paired tasks by the sign of
	// their difference; Changes lists the changed ones, largest first.
	Improved  int          `json:"improved"`
	Worsened  int          `json:"worsened"`
	Unchanged int          `json:"unchanged"`
	Changes   []TaskChange `json:"changes"`
	ByDB      []DBDelta    `json:"by_db,omitempty"`
	// Classes compares the failure classes on the paired tasks: which
	// classes the treatment fixed.
	Classes []ClassDelta `json:"failure_classes,omitempty"`
	// Notes are caveats a reader must see beside the verdict.
	Notes []string `json:"notes,omitempty"`
}

// FewClusters is the number of clusters below which a cluster bootstrap's
// interval is too narrow to trust and its sign-flip p-value too coarse
// (with g clusters the smallest possible p is 2/2^g).
const FewClusters = 10

// FewTasks is the number of paired tasks below which a percentile
// bootstrap interval comes out too narrow (docs/statistics.md).
const FewTasks = 20

// MetricDelta is one metric's paired difference, treatment minus baseline.
type MetricDelta struct {
	Name  string  `json:"name"`
	Base  float64 `json:"base"`
	Treat float64 `json:"treat"`
	stats.PairedResult
}

// Pass1 is the headline pass@1 difference.
func (c *Comparison) Pass1() MetricDelta { return c.Metrics[0] }

// MethodMcNemar names the exact McNemar test in Comparison.PMethod.
const MethodMcNemar = "exact McNemar"

// Compare pairs the treatment runs with the baseline runs on their common
// tasks. Runs whose task sets, tasks hashes, database digests or modes
// differ are refused with a *MismatchError unless opts.AllowMismatch.
// Replicate runs on a side are averaged per task (the mean over runs of
// c/n); the pass@1 difference gets a 95% paired bootstrap interval
// (Resamples, Seed), by tasks or, with ClusterByDB, by databases.
func Compare(base, treat []*Run, opts CompareOptions) (*Comparison, error) {
	if len(base) == 0 || len(treat) == 0 {
		return nil, errors.New("compare: need at least one baseline and one treatment run")
	}
	mism := mismatches(base, treat)
	if len(mism) > 0 && !opts.AllowMismatch {
		return nil, &MismatchError{mism}
	}
	all := append(slices.Clone(base), treat...)
	c := &Comparison{Base: side(base), Treat: side(treat), Mismatches: mism,
		Unreplicated: len(base) == 1 || len(treat) == 1}
	c.Ablation, c.Notes = schemaAblation(base, treat, c.Notes)

	// Tasks every run scored, in id order (the order the bootstrap uses).
	ids, db := commonTasks(all, func(t TaskResult) bool { return t.N > 0 })
	c.Tasks = len(ids)
	shared, _ := commonTasks(all, func(TaskResult) bool { return true })
	union := map[string]bool{}
	for _, r := range all {
		for _, t := range r.Tasks {
			union[t.ID] = true
		}
	}
	c.Dropped = len(union) - len(shared)
	c.Unscored = len(shared) - len(ids)
	if len(ids) < 2 {
		return nil, fmt.Errorf("compare: the runs share %d scored tasks; a paired comparison needs at least 2", len(ids))
	}
	rate := func(t TaskResult) float64 { return t.Rate() }
	bp, tp := sideScores(base, ids, rate), sideScores(treat, ids, rate)
	clusters := make([]string, len(ids))
	for i, id := range ids {
		clusters[i] = db[id]
	}
	if opts.ClusterByDB {
		c.Cluster = "db"
		g := len(distinct(clusters))
		if g < 2 {
			return nil, &FewDatabasesError{Databases: g}
		}
		if g < FewClusters {
			c.Notes = append(c.Notes, fmt.Sprintf("only %d databases: a cluster bootstrap over fewer than %d clusters gives intervals too narrow to trust and coarse p-values; read the per-database table", g, FewClusters))
		}
	}
	p1, err := paired(bp, tp, clusters, opts.ClusterByDB)
	if err != nil {
		return nil, err
	}
	c.Base.Pass1, c.Treat.Pass1 = stats.Mean(bp), stats.Mean(tp)
	c.Metrics = append(c.Metrics, MetricDelta{"pass@1", c.Base.Pass1, c.Treat.Pass1, p1})
	c.Verdict = p1.Verdict
	c.PValue, c.PMethod = p1.PValue, p1.PMethod
	if p1.McNemar != nil && len(base) == 1 && len(treat) == 1 && !opts.ClusterByDB {
		c.PValue, c.PMethod = p1.McNemar.PValue, MethodMcNemar
	}
	c.Decision = decision(c.Verdict, c.PValue, c.PMethod)
	if opts.Criterion != nil {
		met := opts.Criterion.Check(p1)
		// A bar from below ("delta>=0.005") passes only with a proven
		// gain, as round decides: an estimate over the bar inside an
		// interval that holds zero proves nothing.
		if met && lowerBar(*opts.Criterion) && c.Verdict != stats.VerdictGain {
			met = false
			c.CriterionWhy = fmt.Sprintf("the estimate meets it but the verdict is %q", c.Verdict)
		}
		c.Criterion, c.CriterionMet = opts.Criterion.String(), &met
	}

	c.K = math.MaxInt
	for _, r := range all {
		c.K = min(c.K, r.K())
	}
	if c.K > 1 {
		k := c.K
		kids, kdb := commonTasks(all, func(t TaskResult) bool { return t.N >= k })
		kc := make([]string, len(kids))
		for i, id := range kids {
			kc[i] = kdb[id]
		}
		for _, m := range []struct {
			name  string
			score func(TaskResult) float64
		}{
			{PassAtKey(k), func(t TaskResult) float64 { return stats.PassAtK(t.N, t.C, k) }},
			{PassHatKey(k), func(t TaskResult) float64 { return stats.PassHatK(t.N, t.C, k) }},
		} {
			b, t := sideScores(base, kids, m.score), sideScores(treat, kids, m.score)
			// Too few tasks with k samples (or one cluster) leaves it out.
			if r, err := paired(b, t, kc, opts.ClusterByDB); err == nil {
				c.Metrics = append(c.Metrics, MetricDelta{m.name, stats.Mean(b), stats.Mean(t), r})
			}
		}
	}

	for _, m := range c.Metrics {
		if m.N < FewTasks {
			c.Notes = append(c.Notes, fmt.Sprintf("%s rests on %d tasks: a bootstrap interval over fewer than %d tasks is too narrow to trust; read the p-value", m.Name, m.N, FewTasks))
		}
	}

	perDB := map[string]*DBDelta{}
	for i, id := range ids {
		d := tp[i] - bp[i]
		switch {
		case d > 0:
			c.Improved++
		case d < 0:
			c.Worsened++
		default:
			c.Unchanged++
		}
		if d != 0 {
			c.Changes = append(c.Changes, TaskChange{ID: id, DB: db[id], Base: bp[i], Treat: tp[i]})
		}
		g := perDB[db[id]]
		if g == nil {
			g = &DBDelta{DB: db[id]}
			perDB[db[id]] = g
		}
		g.Tasks++
		g.Base += bp[i]
		g.Treat += tp[i]
	}
	slices.SortStableFunc(c.Changes, func(a, b TaskChange) int {
		return cmp.Or(cmp.Compare(math.Abs(b.Treat-b.Base), math.Abs(a.Treat-a.Base)), strings.Compare(a.ID, b.ID))
	})
	c.Classes = classDeltas(base, treat, ids, bp, tp)
	for _, name := range slices.Sorted(maps.Keys(perDB)) {
		g := perDB[name]
		g.Base /= float64(g.Tasks)
		g.Treat /= float64(g.Tasks)
		c.ByDB = append(c.ByDB, *g)
	}
	return c, nil
}

// FewDatabasesError refuses a cluster bootstrap over fewer than two
// databases: resampling one cluster gives the same sample every time.
type FewDatabasesError struct{ Databases int }

func (e *FewDatabasesError) Error() string {
	return fmt.Sprintf("clustering by database needs at least 2 databases; this task set has %d", e.Databases)
}

// Alpha is the level the p-value is read at beside the 95% interval.
const Alpha = 0.05

// decision words the comparison's one decision rule: the verdict is the
// 95% paired bootstrap interval's (proven only when it excludes zero). The
// p-value comes from another test (exact McNemar or sign-flip), which on
// few or tied tasks can disagree with a percentile interval; then the line
// says so, so that nobody reads "proven gain" beside p = 0.06 as a
// contradiction nobody noticed.
func decision(v stats.Verdict, p float64, method string) string {
	rule := "the verdict is the 95% paired bootstrap interval's: proven only when it excludes 0"
	proven := v == stats.VerdictGain || v == stats.VerdictLoss
	switch {
	case math.IsNaN(p):
		return rule
	case proven && p >= Alpha:
		return fmt.Sprintf("%s; the %s test disagrees (p = %.3g, not below %.2g): the percentile interval is narrower than an exact test on few or tied tasks, so this result is borderline, score more tasks or runs before relying on it", rule, method, p, Alpha)
	case !proven && p < Alpha:
		return fmt.Sprintf("%s; the %s test alone would reject no difference (p = %.3g, below %.2g): the interval is wider than that test, so this result is borderline, score more tasks or runs before relying on it", rule, method, p, Alpha)
	}
	return fmt.Sprintf("%s; the %s p-value agrees", rule, method)
}

func paired(base, treat []float64, clusters []string, clustered bool) (stats.PairedResult, error) {
	if clustered {
		r, err := stats.PairedClustered(base, treat, clusters, Resamples, Seed)
		if err != nil {
			return r, fmt.Errorf("compare --cluster db: %w", err)
		}
		return r, nil
	}
	r, err := stats.Paired(base, treat, Resamples, Seed)
	if err != nil {
		return r, fmt.Errorf("compare: %w", err)
	}
	return r, nil
}

func side(runs []*Run) Side {
	var s Side
	models := map[string]bool{}
	for _, r := range runs {
		s.Runs = append(s.Runs, r.Dir)
		if m := r.Manifest.Model; m != "" && !models[m] {
			models[m] = true
			s.Models = append(s.Models, m)
		}
	}
	return s
}

// commonTasks returns, sorted, the ids of tasks that keep(t) in every run,
// with each task's database.
func commonTasks(runs []*Run, keep func(TaskResult) bool) ([]string, map[string]string) {
	count := map[string]int{}
	db := map[string]string{}
	for _, r := range runs {
		for _, t := range r.Tasks {
			if keep(t) {
				count[t.ID]++
				if db[t.ID] == "" {
					db[t.ID] = t.DB
				}
			}
		}
	}
	var ids []string
	for id, n := range count {
		if n == len(runs) {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	return ids, db
}

// sideScores averages score(task) over a side's runs for each id.
func sideScores(runs []*Run, ids []string, score func(TaskResult) float64) []float64 {
	out := make([]float64, len(ids))
	for _, r := range runs {
		byID := make(map[string]TaskResult, len(r.Tasks))
		for _, t := range r.Tasks {
			byID[t.ID] = t
		}
		for i, id := range ids {
			out[i] += score(byID[id])
		}
	}
	for i := range out {
		out[i] /= float64(len(runs))
	}
	return out
}

// mismatches compares every run with the first baseline run.
func mismatches(base, treat []*Run) []Mismatch {
	ref := base[0]
	var out []Mismatch
	check := func(r *Run, sides string) {
		add := func(what, a, b string) {
			out = append(out, Mismatch{What: what, RunA: ref.Dir, RunB: r.Dir, A: a, B: b, Sides: sides})
		}
		if a, b := ref.Manifest.TasksHash, r.Manifest.TasksHash; a != b {
			add("tasks hash", orDash(short(a)), orDash(short(b)))
		}
		if a, b := ref.Manifest.Mode, r.Manifest.Mode; a != b {
			add("mode", orDash(a), orDash(b))
		}
		// The schema may differ between the sides (the linking ablation),
		// not among the runs of one side.
		if a, b := schemaOf(ref), schemaOf(r); a != b && sides == "base/base" {
			add("schema", a, b)
		}
		if !maps.Equal(ref.Manifest.DBDigests, r.Manifest.DBDigests) {
			add("database digests", digestList(ref.Manifest.DBDigests), digestList(r.Manifest.DBDigests))
		}
		if onlyA, onlyB := taskSetDiff(ref, r); onlyA+onlyB > 0 {
			add("task set", fmt.Sprintf("%d tasks, %d not in the other", len(ref.Tasks), onlyA),
				fmt.Sprintf("%d tasks, %d not in the other", len(r.Tasks), onlyB))
		}
	}
	for _, r := range base[1:] {
		check(r, "base/base")
	}
	for _, r := range treat {
		check(r, "base/treat")
	}
	return out
}

func digestList(m map[string]string) string {
	if len(m) == 0 {
		return "none"
	}
	var s []string
	for _, k := range slices.Sorted(maps.Keys(m)) {
		s = append(s, k+"="+short(m[k]))
	}
	return strings.Join(s, ",")
}

func taskSetDiff(a, b *Run) (onlyA, onlyB int) {
	in := map[string]int{}
	for _, t := range a.Tasks {
		in[t.ID] |= 1
	}
	for _, t := range b.Tasks {
		in[t.ID] |= 2
	}
	for _, v := range in {
		switch v {
		case 1:
			onlyA++
		case 2:
			onlyB++
		}
	}
	return onlyA, onlyB
}

func distinct(xs []string) map[string]bool {
	m := map[string]bool{}
	for _, x := range xs {
		m[x] = true
	}
	return m
}

// lowerBar reports a criterion that asks for an improvement ("delta>=x",
// "lo>x"): one that only a proven gain can pass.
func lowerBar(c stats.Criterion) bool { return c.Op == ">=" || c.Op == ">" }
