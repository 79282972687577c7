package screen

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/verify"
	"github.com/sqlgym/sqlgym/verify/compare"
)

// Task fields the screen writes (kept in sqlgym.Task.Extra, so every
// command carries them through unchanged).
const (
	FieldWeak        = "weak"
	FieldWeakMutants = "weak_mutants"
)

// Options tune a screen.
type Options struct {
	// Kinds limits the mutant kinds; none means all.
	Kinds []Kind
	// MaxPerKind bounds the mutants of one kind per gold (default
	// DefaultMaxPerKind).
	MaxPerKind int
	// Chunk is how many tasks' mutants go to the verifier in one batch
	// (default 256): big enough to keep it busy, small enough for memory.
	Chunk int
	// Schemas, by database name, let the kinds that need the schema
	// (wrong_column, wrong_join_key, wrong_grain, and order_wrong_column's
	// column swaps) mutate that database's golds.
	Schemas map[string]*sqlgym.Schema
	// Progress, when set, is called after each chunk.
	Progress func(done, total int)
	// Dialect, when set, names the engine of a task's database, so that
	// the gold screened (and mutated) is the one written for that engine
	// (Task.GoldFor); unset, it is the task's sql.
	Dialect func(db string) sqlgym.Dialect
	// Proofs leaves out of the weak marks the mutants proved equivalent
	// to their gold under the schema's constraints (Equivalent, on
	// Schemas), counting them apart in Report.Equivalent and
	// EquivalentMutants: a task weak only by such mutants is not weak, so
	// DropWeak keeps it. Sound on databases that keep the schema's keys:
	// the original, and variants made by package variants.
	Proofs bool
}

// Report is what a screen found.
type Report struct {
	Mode  compare.Mode `json:"mode"`
	Tasks int          `json:"tasks"`
	// Screened tasks had at least one mutant judged and a gold that ran.
	Screened int `json:"screened"`
	Weak     int `json:"weak"`
	// WeakShare is Weak / Screened.
	WeakShare float64 `json:"weak_share"`
	// NoMutants counts tasks whose gold gave no mutant the mode can judge:
	// not screened, and not weak.
	NoMutants int `json:"no_mutants"`
	// GoldErrors counts tasks whose gold failed or did not match itself
	// (rows that change between runs); InfraErrors tasks left undecided
	// because the database was unavailable. Neither is screened, and their
	// weak fields are left as they were.
	GoldErrors int `json:"gold_errors"`
	// Broken names those tasks with the database's error (or why the
	// gold does not match itself).
	Broken      []verify.BrokenGold `json:"broken_golds,omitempty"`
	InfraErrors int                 `json:"infra_errors"`
	Mutants     int                 `json:"mutants"`
	Kinds       map[Kind]*Tally     `json:"kinds"`
	// Equivalent counts tasks whose every surviving mutant was proved
	// equivalent to the gold (Options.Proofs): not weak, counted apart;
	// EquivalentMutants the mutants so proved.
	Equivalent        int `json:"equivalent"`
	EquivalentMutants int `json:"equivalent_mutants"`
	// Outcomes counts the judged mutants' verdicts.
	Outcomes map[sqlgym.Outcome]int `json:"outcomes"`
}

// Tally is one kind's share of a screen.
type Tally struct {
	// Judged mutants of this kind, and how many of them the verifier
	// judged correct (mistakes it cannot see).
	Judged    int `json:"judged"`
	Invisible int `json:"invisible"`
	// WeakTasks counts tasks with at least one invisible mutant of this
	// kind.
	WeakTasks int `json:"weak_tasks"`
	// SkippedByMode counts mutants not judged because the mode ignores
	// what they change (row order, duplicates, DISTINCT).
	SkippedByMode int `json:"skipped_by_mode"`
}

// Screen mutates each task's gold, judges the mutants with v and returns
// the report and the tasks with their weak fields set: a weak task gets
// "weak": true and "weak_mutants": [{"kind", "sql"}, ...]; a screened task
// that is not weak loses both fields. Tasks come back in input order. v
// must have been built over tasks' databases; its mode is the one used.
// The error is only the context's.
func Screen(ctx context.Context, v *verify.Verifier, tasks []sqlgym.Task, opt Options) (Report, []sqlgym.Task, error) {
	cfg := v.Config()
	rep := Report{Mode: cfg.Mode, Tasks: len(tasks), Kinds: map[Kind]*Tally{}, Outcomes: map[sqlgym.Outcome]int{}}
	kinds := opt.Kinds
	if len(kinds) == 0 {
		kinds = Kinds
	}
	for _, k := range kinds {
		rep.Kinds[k] = &Tally{}
	}
	chunk := opt.Chunk
	if chunk <= 0 {
		chunk = 256
	}
	out := make([]sqlgym.Task, len(tasks))
	copy(out, tasks)
	for lo := 0; lo < len(out); lo += chunk {
		hi := min(lo+chunk, len(out))
		if err := screenChunk(ctx, v, out[lo:hi], opt, &rep); err != nil {
			return rep, nil, err
		}
		if opt.Progress != nil {
			opt.Progress(hi, len(out))
		}
	}
	if rep.Screened > 0 {
		rep.WeakShare = float64(rep.Weak) / float64(rep.Screened)
	}
	return rep, out, nil
}

func screenChunk(ctx context.Context, v *verify.Verifier, tasks []sqlgym.Task, opt Options, rep *Report) error {
	cfg := v.Config()
	var answers []verify.Answer
	var mutants []*Mutant // nil for a task's control answer, its gold
	var owner []int       // task index of each answer
	for i := range tasks {
		t := &tasks[i]
		// The gold judged against itself must be correct; anything else
		// (it fails, or its rows are not stable) leaves the task
		// unscreened, since no mutant's verdict would mean anything.
		gold := t.SQL
		if opt.Dialect != nil {
			gold = t.GoldFor(opt.Dialect(t.DB))
		}
		answers = append(answers, verify.Answer{TaskID: t.ID, Sample: len(answers), SQL: gold, Task: t})
		mutants = append(mutants, nil)
		owner = append(owner, i)
		for _, m := range MutateSchema(gold, opt.MaxPerKind, opt.Schemas[t.DB]) {
			tally := rep.Kinds[m.Kind]
			if tally == nil {
				continue
			}
			if hidden(cfg, t, m) {
				tally.SkippedByMode++
				continue
			}
			answers = append(answers, verify.Answer{TaskID: t.ID, Sample: len(answers), SQL: m.SQL, Task: t})
			mutants = append(mutants, &m)
			owner = append(owner, i)
		}
	}
	results := v.VerifyBatch(ctx, answers)
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("screen interrupted: %w", err)
	}
	type state struct {
		judged, goldErr, infra bool
		goldWhy                string
		weak                   []Mutant
	}
	st := make([]state, len(tasks))
	for j, r := range results {
		s := &st[owner[j]]
		m := mutants[j]
		switch {
		case r.Outcome == sqlgym.OutcomeInfraError:
			s.infra = true
			continue
		case m == nil: // the control comes before the task's mutants
			s.goldErr = r.Outcome != sqlgym.OutcomeCorrect
			s.goldWhy = string(r.Outcome) + ": " + r.Detail
			continue
		case s.goldErr || r.Outcome == sqlgym.OutcomeGoldError:
			if !s.goldErr {
				s.goldWhy = string(r.Outcome) + ": " + r.Detail
			}
			s.goldErr = true
			continue
		}
		rep.Outcomes[r.Outcome]++
		s.judged = true
		rep.Mutants++
		tally := rep.Kinds[m.Kind]
		tally.Judged++
		if r.Outcome == sqlgym.OutcomeCorrect {
			tally.Invisible++
			s.weak = append(s.weak, *m)
		}
	}
	for i := range tasks {
		s := st[i]
		switch {
		case s.goldErr:
			rep.GoldErrors++
			rep.Broken = append(rep.Broken, verify.BrokenGold{TaskID: tasks[i].ID, Error: s.goldWhy})
			continue
		case len(s.weak) > 0:
			if opt.Proofs {
				st[i].weak = rep.proven(tasks[i], s.weak, opt)
				s = st[i]
				if len(s.weak) == 0 {
					rep.Screened++
					rep.Equivalent++
					clearWeak(&tasks[i])
					continue
				}
			}
		case s.infra:
			rep.InfraErrors++
			continue
		case !s.judged:
			rep.NoMutants++
			clearWeak(&tasks[i])
			continue
		}
		rep.Screened++
		if len(s.weak) == 0 {
			clearWeak(&tasks[i])
			continue
		}
		rep.Weak++
		var seen []Kind
		for _, m := range s.weak {
			if !slices.Contains(seen, m.Kind) {
				seen = append(seen, m.Kind)
				rep.Kinds[m.Kind].WeakTasks++
			}
		}
		setWeak(&tasks[i], s.weak)
	}
	return nil
}

// hidden reports whether the mode ignores, by design, all that mutant m
// can change: such a mutant would be judged correct whatever the data.
func hidden(cfg verify.Config, t *sqlgym.Task, m Mutant) bool {
	mode := cfg.Mode
	if m.Distinct && mode == compare.TestSuite && !cfg.KeepDistinct {
		return true // the test-suite scorer strips DISTINCT from both queries
	}
	switch m.Effect {
	case EffectOrder:
		switch mode {
		case compare.Bird, compare.F1:
			return true
		case compare.Spider2:
			// Unset, spider2 orders when the gold has a top-level ORDER
			// BY, which an order-only mutant always comes from.
			return t.IgnoreOrder != nil && *t.IgnoreOrder
		}
	case EffectDuplicates:
		return mode == compare.Bird || mode == compare.F1
	}
	return false
}

// weakMutant is how a mutant is written into a task.
type weakMutant struct {
	Kind Kind   `json:"kind"`
	SQL  string `json:"sql"`
}

func setWeak(t *sqlgym.Task, ms []Mutant) {
	list := make([]weakMutant, len(ms))
	for i, m := range ms {
		list[i] = weakMutant{m.Kind, m.SQL}
	}
	b, _ := json.Marshal(list) // strings only: cannot fail
	extra := make(map[string]json.RawMessage, len(t.Extra)+2)
	for k, v := range t.Extra {
		extra[k] = v
	}
	extra[FieldWeak] = json.RawMessage("true")
	extra[FieldWeakMutants] = b
	t.Extra = extra
}

func clearWeak(t *sqlgym.Task) {
	if t.Extra == nil {
		return
	}
	_, a := t.Extra[FieldWeak]
	_, b := t.Extra[FieldWeakMutants]
	if !a && !b {
		return
	}
	extra := make(map[string]json.RawMessage, len(t.Extra))
	for k, v := range t.Extra {
		if k != FieldWeak && k != FieldWeakMutants {
			extra[k] = v
		}
	}
	if len(extra) == 0 {
		extra = nil
	}
	t.Extra = extra
}

// IsWeak reports whether a screen marked the task weak.
func IsWeak(t sqlgym.Task) bool {
	var w bool
	return t.Extra != nil && json.Unmarshal(t.Extra[FieldWeak], &w) == nil && w
}

// WeakMutants returns the mutants a screen recorded on the task.
func WeakMutants(t sqlgym.Task) []Mutant {
	var list []weakMutant
	if t.Extra == nil || json.Unmarshal(t.Extra[FieldWeakMutants], &list) != nil {
		return nil
	}
	out := make([]Mutant, len(list))
	for i, m := range list {
		out[i] = Mutant{Kind: m.Kind, SQL: m.SQL}
	}
	return out
}

// DropWeak returns the tasks that are not marked weak.
func DropWeak(tasks []sqlgym.Task) []sqlgym.Task {
	var out []sqlgym.Task
	for _, t := range tasks {
		if !IsWeak(t) {
			out = append(out, t)
		}
	}
	return out
}

// proven returns the weak mutants not proved equivalent to the task's
// gold, counting those proved.
func (rep *Report) proven(t sqlgym.Task, weak []Mutant, opt Options) []Mutant {
	gold := t.SQL
	if opt.Dialect != nil {
		gold = t.GoldFor(opt.Dialect(t.DB))
	}
	var out []Mutant
	for _, m := range weak {
		if ok, _ := Equivalent(gold, m, opt.Schemas[t.DB]); ok {
			rep.EquivalentMutants++
			continue
		}
		out = append(out, m)
	}
	return out
}
