package variants

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/constraints"
	"github.com/sqlgym/sqlgym/engine"
	schemapkg "github.com/sqlgym/sqlgym/schema"
	"github.com/sqlgym/sqlgym/screen"
	"github.com/sqlgym/sqlgym/verify"
	"github.com/sqlgym/sqlgym/verify/compare"
)

// Options tune a generation.
type Options struct {
	// MaxVariants is the most variants kept per database (default 5).
	MaxVariants int
	// Candidates bounds the variants built and screened per database
	// (default 4 x MaxVariants): each weak task's own edits are packed
	// into a first variant, those that do not kill there into the next,
	// and so on until MaxVariants are kept, none is left, or a variant
	// adds no kill.
	Candidates int
	// Seed makes the candidates; the same seed on the same database and
	// tasks gives the same variants.
	Seed uint64
	// Mode is the comparison the mutants are judged under (default
	// multiset).
	Mode       compare.Mode
	MaxPerKind int
	Limits     sqlgym.Limits
	// PostgresAdmin is the DSN of a role that may create schemas in a
	// PostgreSQL database being varied (the database's own DSN when
	// empty): the candidates and variants are schemas it makes, read with
	// the database's DSN as the verifier reads them.
	PostgresAdmin string
	// PostgresSchema is the schema of a PostgreSQL database whose URL has
	// no schema= (public when empty too).
	PostgresSchema string
	// MySQLAdmin is the mysql:// URL of an account that may create the
	// variant databases NAME_vK on a MySQL database's server and grant
	// its reader SELECT on them (default: the database's own URL).
	MySQLAdmin string
	// Replace drops a PostgreSQL database's variant and candidate schemas
	// left by an earlier run (NAME_vK, NAME_cK); without it they are
	// refused. Files are the caller's to clear.
	Replace bool
	// DeclaredOnly keeps only the constraints the database declares;
	// by default the keys and foreign keys its data and names imply
	// (package constraints) are kept too: no variant holds an orphan
	// child row, a NULL or a duplicated key, implied or declared. Only
	// SQLite targets keep implied keys (their edits run under guards,
	// sqliteGuards); DuckDB and PostgreSQL ones keep the declared ones.
	DeclaredOnly bool
	// UnseenValues lets NULLs and namesakes go into any nullable column;
	// by default a NULL goes only into a column whose data holds one and
	// a copied row repeats only values its column already repeats.
	UnseenValues bool
	// WholeBase builds the variants on the whole original instead of a
	// sample of its rows closed under its keys (sample.go): the generator
	// before sampling, kept to measure against.
	WholeBase bool
	// SampleAbove is the fewest rows an original must hold for its
	// variants to be built on a sample (default 20,000): below it the
	// whole original costs little, and the thinning and the trim bring
	// its variants to hundreds of rows with the kills a sample can lose
	// (docs/authoring.md, "Small variants on a sampled base").
	SampleAbove int64
	// CostRounds is the rounds of the judging-cost measure (JudgeCost):
	// 0 takes 2, or none for a sampled original of more than
	// autoCostRows rows (each round judges the batch on the whole
	// original twice); a negative number skips it.
	CostRounds int
	// AllVariants gives every task every kept variant of its database
	// that is fair to it (pertask.go) in its db_variants; by default a
	// task lists only the fair variants that kill one of its own mutants
	// (killers.go), which is what keeps judging on them cheap.
	AllVariants bool
	// Log, when set, gets the generator's traces, a line per trial.
	Log func(format string, args ...any)
	// Step, when set, is told each step of a database's generation as it
	// begins, for a progress line (Progress.Step).
	Step func(step string)
}

func (o Options) withDefaults() Options {
	if o.MaxVariants <= 0 {
		o.MaxVariants = 5
	}
	if o.Candidates <= 0 {
		o.Candidates = 4 * o.MaxVariants
	}
	if o.Mode == "" {
		o.Mode = compare.Multiset
	}
	if o.Log == nil {
		o.Log = func(string, ...any) {}
	}
	if o.Step == nil {
		o.Step = func(string) {}
	}
	if o.SampleAbove <= 0 {
		o.SampleAbove = defaultSampleAbove
	}
	return o
}

// Generator makes the variants of one database.
type Generator struct {
	dbs   verify.Databases
	name  string
	url   string
	tgt   target
	tasks []sqlgym.Task
	// dialect is the database's engine: the golds generated for are
	// the tasks' golds for it (Task.GoldFor).
	dialect sqlgym.Dialect
	// schema is the database's schema with the kept constraints applied
	// (constraints.Set.Apply): the implied keys read as declared.
	schema *sqlgym.Schema
	// cons is what the database declares and implies.
	cons *constraints.Set
	// proofs is schema with the column facts the variants keep marked
	// (constraints.Set.ApplyFacts: never NULL, never repeated), which
	// the equivalence proofs may rest on; schema itself when they are
	// not kept.
	proofs *sqlgym.Schema
	opt    Options

	golds      []string
	goldStates map[string]goldState
}

// DBResult is what a generation found for one database.
type DBResult struct {
	Name     string `json:"name"`
	URL      string `json:"url"`
	Digest   string `json:"digest"`
	Seed     uint64 `json:"seed"`
	Tasks    int    `json:"tasks"`
	Variants []Kept `json:"variants"`
	// CandidatesTried counts variants built; CandidatesDropped those
	// still breaking a gold after repair.
	CandidatesTried   int `json:"candidates_tried"`
	CandidatesDropped int `json:"candidates_dropped"`
	// GoldsEmpty counts golds that return no row on the original nor on
	// any kept variant.
	GoldsEmpty int `json:"golds_empty"`
	// Inferred lists the keys and foreign keys the data implied and the
	// variants kept (none with Options.DeclaredOnly).
	Inferred *Inferred `json:"inferred,omitempty"`
	// Base is the sampled base the variants were built on (nil: the
	// whole original, every table small enough or the option set).
	Base   *BaseInfo     `json:"base,omitempty"`
	Before screen.Report `json:"before"`
	After  screen.Report `json:"after"`
	// Killed maps a task id to the mutants the variants killed, with the
	// first kept variant that kills each.
	Killed map[string][]KilledMutant `json:"killed,omitempty"`
	// EquivalentTasks counts tasks still weak only by mutants proved
	// equivalent to their gold (EquivalentMutants of them, by kind in
	// EquivalentByKind); they stay marked weak in the task file.
	EquivalentTasks   int                 `json:"equivalent_tasks"`
	EquivalentMutants int                 `json:"equivalent_mutants"`
	EquivalentByKind  map[screen.Kind]int `json:"equivalent_by_kind,omitempty"`
	// NearMissBefore and NearMissAfter count tasks weak by a mutant of the
	// screen's first nine kinds (screen.NearMissKinds), equivalents left
	// out after: the share the screen reported before the new kinds.
	NearMissBefore int `json:"near_miss_weak_before"`
	NearMissAfter  int `json:"near_miss_weak_after"`
	// Undistinguished is the mutants still weak after the variants and
	// not proved equivalent to their gold: no candidate separated them
	// within the budget. They still count as weak (their tasks are in
	// After.Weak); listed apart so that a reader sees what is left to
	// find, per task, with UndistinguishedTasks the tasks holding one.
	Undistinguished      []Undistinguished `json:"undistinguished,omitempty"`
	UndistinguishedTasks int               `json:"undistinguished_tasks"`
	// LeftOut lists the variants left out of one task's db_variants
	// because its gold returns no row there and some on the original, or
	// is not deterministic there (leftOut): the variant stays for the
	// database's other tasks.
	LeftOut []LeftOut `json:"left_out,omitempty"`
	// Levels tallies weak tasks per task level (complexity, else
	// difficulty).
	Levels  map[string]*LevelTally `json:"levels"`
	Seconds float64                `json:"seconds"`
	// StillWeak lists the tasks still weak on the original and the
	// variants by a mutant not proved equivalent: where a person looks
	// next (a better gold, a task to drop, edits to find).
	StillWeak []string `json:"still_weak,omitempty"`
	// Cost is what judging on the variants costs against the original
	// alone: a 512-answer batch judged on both, alternated (JudgeCost;
	// wall time of this machine, loaded as it was).
	Cost JudgeCost `json:"judge_cost"`

	tasksAfter []sqlgym.Task
}

// Undistinguished is a mutant no variant tells from its gold and no
// proof shows equivalent to it.
type Undistinguished struct {
	Task string      `json:"task"`
	Kind screen.Kind `json:"kind"`
	SQL  string      `json:"sql"`
}

// Kept is one kept variant database.
type Kept struct {
	Name string `json:"name"`
	// Path is a SQLite or DuckDB variant's file; URL a PostgreSQL
	// variant's, which names its schema (schema=NAME_vK).
	Path   string `json:"path"`
	URL    string `json:"url,omitempty"`
	Digest string `json:"digest"`
	// Candidate is the variant's index among those built: the packing
	// round of an aimed variant, the seed stream of a fuzzed one.
	Candidate int `json:"candidate"`
	// Kills counts the surviving mutants it kills, NewKills those no
	// earlier kept variant kills.
	Kills    int `json:"kills"`
	NewKills int `json:"new_kills"`
	// Rows is the variant's row count after the trim; TrimmedRows the
	// original rows the trim deleted (TrimTrials the steps it tried).
	Rows        int64 `json:"rows"`
	TrimmedRows int   `json:"trimmed_rows"`
	TrimTrials  int   `json:"trim_trials"`
	// ThinnedRows counts the original rows deleted before the edits (the
	// thinning, trim.go); the first ThinStatements of Statements delete
	// them.
	ThinnedRows    int      `json:"thinned_rows,omitempty"`
	ThinStatements int      `json:"thin_statements,omitempty"`
	Statements     []string `json:"statements"`
}

// LevelTally is one level's weak tasks before and after the variants.
type LevelTally struct {
	Tasks      int `json:"tasks"`
	WeakBefore int `json:"weak_before"`
	WeakAfter  int `json:"weak_after"`
}

// Level is the level a task is reported under.
func Level(t sqlgym.Task) string {
	switch {
	case t.Complexity != "":
		return t.Complexity
	case t.Difficulty != "":
		return t.Difficulty
	}
	return "-"
}

// JudgeCost is what judging a GRPO-shaped batch (CostBatch: the first
// costTasks tasks, CostSamples answers each) cost on the original alone
// and with each task's variants, the two alternated over Rounds rounds
// in one process (MeasureJudging): wall seconds summed over the rounds,
// VariantSeconds the time the variants added; statements per batch.
type JudgeCost struct {
	OriginalSeconds float64 `json:"original_seconds"`
	VariantSeconds  float64 `json:"variant_seconds"`
	Rounds          int     `json:"rounds,omitempty"`
	Answers         int     `json:"answers,omitempty"`
	OriginalRuns    int     `json:"original_statements,omitempty"`
	VariantsRuns    int     `json:"variants_statements,omitempty"`
}

// Ratio is the cost of judging on the original and its variants over the
// original alone (1 without variants).
func (c JudgeCost) Ratio() float64 {
	if c.OriginalSeconds <= 0 {
		return 1
	}
	return (c.OriginalSeconds + c.VariantSeconds) / c.OriginalSeconds
}

// KilledMutant is a mutant a variant told from its gold.
type KilledMutant struct {
	Kind    screen.Kind `json:"kind"`
	SQL     string      `json:"sql"`
	Variant string      `json:"variant"`
}

// NewGenerator prepares the generation for the database named name (URL
// url) and its tasks; dbs resolves every other name.
func NewGenerator(ctx context.Context, dbs verify.Databases, name, url string, tasks []sqlgym.Task, opt Options) (*Generator, error) {
	loc, err := engine.ParseURL(url)
	if err != nil {
		return nil, err
	}
	switch loc.Dialect {
	case sqlgym.DialectSQLite, sqlgym.DialectDuckDB, sqlgym.DialectPostgres, sqlgym.DialectMySQL:
	default:
		return nil, fmt.Errorf("database %q is %s: %w (leave its tasks out of --tasks)", name, loc.Dialect, ErrNoEngine)
	}
	eng, err := dbs.EngineURL(ctx, url)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", name, err)
	}
	schema, err := schemapkg.Load(ctx, eng, 0)
	if err != nil {
		return nil, fmt.Errorf("database %s: %w", name, err)
	}
	cons, err := constraints.Infer(ctx, eng, schema, constraints.Options{Limits: opt.Limits.GoldLimits()})
	if err != nil {
		return nil, fmt.Errorf("database %s: %w", name, err)
	}
	// Implied keys are kept only where the edits can be guarded
	// (sqliteGuards): on DuckDB and PostgreSQL the declared ones alone.
	if loc.Dialect != sqlgym.DialectSQLite {
		opt.DeclaredOnly = true
	}
	g := &Generator{dbs: dbs, name: name, url: url, tasks: tasks, dialect: loc.Dialect, cons: cons,
		schema: cons.Apply(schema, !opt.DeclaredOnly), opt: opt.withDefaults()}
	g.proofs = g.schema
	if loc.Dialect == sqlgym.DialectSQLite && !opt.UnseenValues {
		g.proofs = cons.Apply(schema, !opt.DeclaredOnly)
		cons.ApplyFacts(g.proofs)
	}
	seen := map[string]bool{}
	for _, t := range tasks {
		for _, s := range t.GoldsFor(loc.Dialect) {
			if !seen[s] {
				seen[s] = true
				g.golds = append(g.golds, s)
			}
		}
	}
	return g, nil
}

func mutantID(task, sql string) string { return task + "\x00" + sql }

// Run fuzzes the candidates, keeps the few that kill the most surviving
// mutants and writes them as dir/NAME_vK.sqlite beside a copy of the
// original, dir/NAME.sqlite; a DuckDB database's as dir/NAME_vK.duckdb
// beside dir/NAME.duckdb; a PostgreSQL database's as schemas NAME_vK in
// its database (dir is not used). dir must exist and be empty of those
// names.
func (g *Generator) Run(ctx context.Context, dir string) (res *DBResult, err error) {
	start := time.Now()
	opt := g.opt
	res = &DBResult{Name: g.name, URL: g.url, Seed: opt.Seed, Tasks: len(g.tasks), Killed: map[string][]KilledMutant{}}
	if !opt.DeclaredOnly {
		res.Inferred = inferred(g.cons)
	}
	if g.tgt, err = g.newTarget(ctx, dir); err != nil {
		return nil, err
	}
	defer func() {
		if cerr := g.tgt.close(ctx); cerr != nil && err == nil {
			res, err = nil, fmt.Errorf("remove candidates: %w", cerr)
		}
	}()
	if res.Digest, err = g.tgt.digest(ctx); err != nil {
		return nil, err
	}
	orig, err := g.tgt.original(ctx)
	if err != nil {
		return nil, err
	}
	schemas := map[string]*sqlgym.Schema{g.name: g.schema}
	sopt := screen.Options{MaxPerKind: opt.MaxPerKind, Schemas: schemas,
		Dialect: func(string) sqlgym.Dialect { return g.dialect }}
	cfg := verify.Config{Mode: opt.Mode, Limits: opt.Limits}

	// Before: the mutants the original cannot tell from their gold.
	opt.Step("screening its golds on the original")
	rep, marked, err := screen.Screen(ctx, verify.New(g.dbs, g.tasks, cfg), g.tasks, sopt)
	if err != nil {
		return nil, err
	}
	res.Before = rep
	before := marked
	weakTasks, survivors := survivorsOf(marked)
	opt.Log("%s: %d of %d screened tasks weak, %d surviving mutants", g.name, rep.Weak, rep.Screened, len(survivors))

	if g.goldStates, err = g.tgt.golds(ctx, orig, g.golds, opt.Limits); err != nil {
		return nil, err
	}
	// The candidates' base: a sample of the original's rows closed under
	// its keys (sample.go), for a SQLite original with a table too large
	// to keep whole.
	var sampled *base
	if ft, ok := g.tgt.(*fileTarget); ok && ft.d == sqlgym.DialectSQLite && len(survivors) > 0 && !opt.WholeBase {
		if sampled, err = g.sampleBase(ctx, ft.src, ft.tmp); err != nil {
			return nil, err
		}
		if sampled != nil {
			ft.orig = sampled.path
			res.Base = &sampled.info
		}
	}
	// Each weak task's own edits, then as few variants as carry them.
	var kept []*candidate
	killedBy := map[string]string{}
	if len(survivors) > 0 {
		opt.Step(fmt.Sprintf("aiming edits at %d weak tasks", len(weakTasks)))
		aims, err := g.aims(ctx, weakTasks, sopt, survivors)
		if err != nil {
			return nil, err
		}
		opt.Step(fmt.Sprintf("packing %d aims into variants", len(aims)))
		packed, first, err := g.assemble(ctx, aims, weakTasks, sopt, survivors, res)
		if err != nil {
			return nil, err
		}
		for i, p := range packed {
			kept = append(kept, p.c)
			res.Variants = append(res.Variants, Kept{Name: fmt.Sprintf("%s_v%d", g.name, i+1), Candidate: p.c.index,
				Kills: len(p.c.killed), NewKills: p.newKills, Statements: p.c.stmts})
		}
		for id, i := range first {
			killedBy[id] = res.Variants[i].Name
		}
		// Slots the aims left free (their kills all placed, or a variant
		// added none) and tries left: candidates fuzzed from every gold's
		// edits at once, as the paper does, kept by greedy set cover.
		// They kill what no task's own edits do alone (a namesake that
		// tells two golds' mutants) at the price of size.
		opt.Step("fuzzing candidates for the slots left")
		fuzzed, err := g.fuzz(ctx, opt.Candidates-res.CandidatesTried, opt.MaxVariants-len(kept), killedBy, weakTasks, sopt, survivors, res)
		if err != nil {
			return nil, err
		}
		for _, c := range fuzzed {
			gain := 0
			for _, id := range sortedIDs(c.killed) {
				if _, done := killedBy[id]; !done {
					gain++
				}
			}
			if gain == 0 {
				continue
			}
			kept = append(kept, c)
			name := fmt.Sprintf("%s_v%d", g.name, len(kept))
			for id := range c.killed {
				if _, done := killedBy[id]; !done {
					killedBy[id] = name
				}
			}
			res.Variants = append(res.Variants, Kept{Name: name, Candidate: c.index, Kills: len(c.killed), NewKills: gain, Statements: c.stmts})
		}
	}

	// Trim: each kept variant loses the original rows its kills and its
	// golds do not need (trim.go), which is what judging on it costs. The
	// trim reads and edits SQLite files; other engines keep their
	// variants whole.
	if len(kept) > 0 && g.tgt.dialect() == sqlgym.DialectSQLite {
		opt.Step(fmt.Sprintf("trimming %d variants", len(kept)))
		if err := g.trimAll(ctx, kept, res, killedBy, weakTasks, sopt, survivors); err != nil {
			return nil, err
		}
	}
	kept = dropIdle(kept, res, killedBy)

	// A variant built on the base is the original less the rows the base
	// leaves out, then its own statements: the deletions go first, counted
	// with the thinning's.
	if sampled != nil {
		del := sampled.statements()
		for i := range res.Variants {
			k := &res.Variants[i]
			k.Statements = append(slices.Clone(del), k.Statements...)
			k.ThinStatements += len(del)
			k.ThinnedRows += sampled.deleted()
		}
	}

	// Write the kept variants beside the original's copy.
	urls := []string{orig}
	var states []map[string]goldState
	for i := range res.Variants {
		k := &res.Variants[i]
		w, err := g.tgt.keep(ctx, kept[i].url, k.Name)
		if err != nil {
			return nil, err
		}
		k.Path, k.URL, k.Digest = w.Path, w.URL, w.Digest
		u := w.URL
		if u == "" {
			u = string(g.tgt.dialect()) + ":" + w.Path
		}
		urls = append(urls, u)
		st, err := g.tgt.golds(ctx, u, g.golds, opt.Limits)
		if err != nil {
			return nil, err
		}
		states = append(states, st)
	}
	for _, s := range g.golds {
		if !nonEmpty(g.goldStates, kept, s) {
			res.GoldsEmpty++
		}
	}

	// After: the same screen judged on the original and every variant.
	opt.Step(fmt.Sprintf("judging the tasks on the original and %d variants", len(res.Variants)))
	tasks := make([]sqlgym.Task, len(g.tasks))
	copy(tasks, g.tasks)
	names := make([]string, len(res.Variants))
	for i, k := range res.Variants {
		names[i] = k.Name
	}
	reps, err := repeatsOn(ctx, orig, urls[1:], g.golds, opt.Limits)
	if err != nil {
		return nil, err
	}
	res.LeftOut = assignVariants(tasks, g.dialect, orig, urls[1:], names, g.goldStates, states, reps)
	var nulls [][]nullKey
	if !opt.AllVariants && g.cons != nil {
		if nulls, err = nullKeys(ctx, orig, urls[1:], g.cons.ForeignKeys); err != nil {
			return nil, err
		}
	}
	taskVariants(tasks, g.dialect, g.name, res.Variants, urls, killedBy, nulls, opt.AllVariants)
	vcfg := cfg
	vcfg.Variants = true
	over := &overlay{Databases: g.dbs, name: g.name, urls: urls}
	rep, marked, err = screen.Screen(ctx, verify.New(over, tasks, vcfg), tasks, sopt)
	if err != nil {
		return nil, err
	}
	res.After = rep
	res.tasksAfter = marked
	still := map[string]bool{}
	res.EquivalentByKind = map[screen.Kind]int{}
	equivOnly := map[string]bool{}
	for _, t := range marked {
		ms := screen.WeakMutants(t)
		if len(ms) == 0 {
			continue
		}
		full := map[string]screen.Mutant{}
		for _, m := range screen.MutateSchema(t.GoldFor(g.dialect), opt.MaxPerKind, g.schema) {
			full[m.SQL] = m
		}
		weakKinds := map[screen.Kind]bool{}
		equiv := 0
		for _, m := range ms {
			still[mutantID(t.ID, m.SQL)] = true
			if fm, ok := full[m.SQL]; ok {
				m = fm
			}
			if ok, _ := screen.Equivalent(t.GoldFor(g.dialect), m, g.proofs); ok {
				equiv++
				if _, seen := weakKinds[m.Kind]; !seen {
					weakKinds[m.Kind] = false
				}
			} else {
				weakKinds[m.Kind] = true
				res.Undistinguished = append(res.Undistinguished, Undistinguished{Task: t.ID, Kind: m.Kind, SQL: m.SQL})
			}
		}
		if equiv < len(ms) {
			res.UndistinguishedTasks++
		}
		res.EquivalentMutants += equiv
		if equiv == len(ms) {
			res.EquivalentTasks++
			equivOnly[t.ID] = true
		} else {
			res.StillWeak = append(res.StillWeak, t.ID)
		}
		for k, weak := range weakKinds {
			if !weak {
				res.EquivalentByKind[k]++
			}
		}
	}
	// What judging costs: a GRPO-shaped batch on the original alone and
	// with each task's variants, alternated (cost.go).
	rounds := opt.CostRounds
	if rounds == 0 {
		rounds = 2
		if res.Base != nil && res.Base.OriginalRows > autoCostRows {
			rounds = -1
		}
	}
	if rounds > 0 && len(res.Variants) > 0 {
		opt.Step("measuring what judging on the variants costs")
		batch := CostBatch(tasks, costTasks, opt.Seed, func(string) sqlgym.Dialect { return g.dialect })
		c, err := MeasureJudging(ctx, over, tasks, batch, verify.Config{Mode: opt.Mode, Limits: opt.Limits}, rounds, nil)
		if err != nil {
			return nil, err
		}
		res.Cost = JudgeCost{OriginalSeconds: c.OriginalWall, VariantSeconds: c.VariantsWall - c.OriginalWall,
			Rounds: c.Rounds, Answers: c.Answers, OriginalRuns: c.OriginalRuns, VariantsRuns: c.VariantsRuns}
	}
	res.Levels = levels(before, marked, equivOnly)
	for _, t := range before {
		if nearMiss(t, nil) {
			res.NearMissBefore++
		}
	}
	for _, t := range marked {
		if nearMiss(t, func(m screen.Mutant) bool {
			fm := m
			for _, x := range screen.MutateSchema(t.GoldFor(g.dialect), opt.MaxPerKind, g.schema) {
				if x.SQL == m.SQL {
					fm = x
				}
			}
			ok, _ := screen.Equivalent(t.GoldFor(g.dialect), fm, g.proofs)
			return ok
		}) {
			res.NearMissAfter++
		}
	}
	ids := make([]string, 0, len(survivors))
	for id := range survivors {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		if still[id] {
			continue
		}
		m := survivors[id]
		task := id[:len(id)-len(m.SQL)-1]
		res.Killed[task] = append(res.Killed[task], KilledMutant{Kind: m.Kind, SQL: m.SQL, Variant: killedBy[id]})
	}
	res.Seconds = time.Since(start).Seconds()
	return res, nil
}

// dropIdle takes out the kept variants that are the first to kill no
// mutant (a variant that adds no kill only costs judging time), renaming
// the ones after them NAME_v1, NAME_v2... in order again.
func dropIdle(kept []*candidate, res *DBResult, killedBy map[string]string) []*candidate {
	first := map[string]int{}
	for _, v := range killedBy {
		first[v]++
	}
	var keptOut []*candidate
	var vars []Kept
	rename := map[string]string{}
	for i, k := range res.Variants {
		if first[k.Name] == 0 {
			continue
		}
		keptOut = append(keptOut, kept[i])
		old := k.Name
		k.Name = fmt.Sprintf("%s_v%d", strings.TrimSuffix(old, fmt.Sprintf("_v%d", i+1)), len(vars)+1)
		rename[old] = k.Name
		vars = append(vars, k)
	}
	if len(vars) == len(res.Variants) {
		return kept
	}
	for id, v := range killedBy {
		killedBy[id] = rename[v]
	}
	res.Variants = vars
	return keptOut
}

// TasksAfter returns the database's tasks with their weak marks as judged
// on the original and the variants.
func (r *DBResult) TasksAfter() []sqlgym.Task { return r.tasksAfter }

// overlay resolves one database name to given URLs: the first for Resolve,
// all of them for Variants. Every other name goes to the wrapped catalog.
type overlay struct {
	verify.Databases
	name string
	urls []string
	// own, when set, is the engine of urls[0], opened by the caller.
	own sqlgym.Engine
}

func (o *overlay) EngineURL(ctx context.Context, url string) (sqlgym.Engine, error) {
	if o.own != nil && url == o.urls[0] {
		return o.own, nil
	}
	return o.Databases.EngineURL(ctx, url)
}

func (o *overlay) Resolve(name string) (string, error) {
	if name == o.name {
		return o.urls[0], nil
	}
	return o.Databases.Resolve(name)
}

func (o *overlay) TaskVariants(name, task string) ([]string, error) {
	if name == o.name {
		return o.urls, nil
	}
	return o.Databases.TaskVariants(name, task)
}

func (o *overlay) Variants(name string) ([]string, error) {
	if name == o.name {
		return o.urls, nil
	}
	return o.Databases.Variants(name)
}

// dedup keeps the first of equal values, in order.
func dedup[T comparable](xs []T) []T {
	seen := map[T]bool{}
	var out []T
	for _, x := range xs {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}

// levels counts weak tasks per level, before and after the variants.
// A task weak after only by equivalent mutants (equiv) is not counted.
func levels(before, after []sqlgym.Task, equiv map[string]bool) map[string]*LevelTally {
	out := map[string]*LevelTally{}
	for i, t := range before {
		l := out[Level(t)]
		if l == nil {
			l = &LevelTally{}
			out[Level(t)] = l
		}
		l.Tasks++
		if screen.IsWeak(t) {
			l.WeakBefore++
		}
		if i < len(after) && screen.IsWeak(after[i]) && !equiv[after[i].ID] {
			l.WeakAfter++
		}
	}
	return out
}

// nearMiss reports whether the task is weak by a near-miss mutant that is
// not equivalent (equivalent nil: none is).
func nearMiss(t sqlgym.Task, equivalent func(screen.Mutant) bool) bool {
	for _, m := range screen.WeakMutants(t) {
		if slices.Contains(screen.NearMissKinds, m.Kind) && (equivalent == nil || !equivalent(m)) {
			return true
		}
	}
	return false
}

// survivorsOf returns the screened tasks that have a surviving mutant and
// every such mutant, keyed by task and SQL: what the generator aims at.
func survivorsOf(marked []sqlgym.Task) ([]sqlgym.Task, map[string]screen.Mutant) {
	survivors := map[string]screen.Mutant{}
	var weak []sqlgym.Task
	for _, t := range marked {
		ms := screen.WeakMutants(t)
		if len(ms) > 0 {
			weak = append(weak, t)
		}
		for _, m := range ms {
			survivors[mutantID(t.ID, m.SQL)] = m
		}
	}
	return weak, survivors
}
