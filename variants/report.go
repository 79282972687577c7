package variants

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/sqlgym/sqlgym/screen"
	"github.com/sqlgym/sqlgym/verify/compare"
)

// Report is a generation over every database of a task set; written as
// DIR/manifest.json it is also the manifest: seeds, digests, the
// statements of each variant and, per task, the mutants killed.
type Report struct {
	Mode        compare.Mode `json:"mode"`
	Seed        uint64       `json:"seed"`
	MaxVariants int          `json:"max_variants"`
	Databases   []*DBResult  `json:"databases"`
	// Skipped names databases left out, with why (no engine layer for them).
	Skipped map[string]string `json:"skipped,omitempty"`

	Screened    int     `json:"screened"`
	WeakBefore  int     `json:"weak_before"`
	WeakAfter   int     `json:"weak_after"`
	ShareBefore float64 `json:"weak_share_before"`
	ShareAfter  float64 `json:"weak_share_after"`
	// NearMissBefore and NearMissAfter count the tasks weak by the
	// screen's first nine kinds only.
	NearMissBefore int `json:"near_miss_weak_before"`
	NearMissAfter  int `json:"near_miss_weak_after"`
	// Equivalent counts tasks still weak after the variants only by
	// mutants proved equivalent to their gold under the schema's
	// constraints (see Equivalent); they are not in WeakAfter.
	Equivalent        int `json:"equivalent"`
	EquivalentMutants int `json:"equivalent_mutants"`
	// Undistinguished counts the mutants still weak and not proved
	// equivalent (UndistinguishedTasks the tasks holding one): counted
	// weak, listed per database (DBResult.Undistinguished).
	Undistinguished      int                        `json:"undistinguished"`
	UndistinguishedTasks int                        `json:"undistinguished_tasks"`
	Kinds                map[screen.Kind]*KindTally `json:"kinds"`
	Levels               map[string]*LevelTally     `json:"levels"`
	Seconds              float64                    `json:"seconds"`
	// StillWeak lists, per database, the tasks still weak after the
	// variants (DBResult.StillWeak).
	StillWeak map[string][]string `json:"still_weak,omitempty"`
	// Cost adds up the databases' judging costs.
	Cost JudgeCost `json:"judge_cost"`
	// Next is the command to run next, for the person reading.
	Next string `json:"next,omitempty"`
}

// KindTally is one mutant kind's weak tasks before and after.
type KindTally struct {
	WeakBefore int `json:"weak_before"`
	WeakAfter  int `json:"weak_after"`
	Equivalent int `json:"equivalent"`
}

// Summarize adds the databases' results up.
func Summarize(mode compare.Mode, seed uint64, maxVariants int, dbs []*DBResult, skipped map[string]string) *Report {
	r := &Report{Mode: mode, Seed: seed, MaxVariants: maxVariants, Databases: dbs, Skipped: skipped,
		Kinds: map[screen.Kind]*KindTally{}, Levels: map[string]*LevelTally{}}
	for _, k := range screen.Kinds {
		r.Kinds[k] = &KindTally{}
	}
	for _, d := range dbs {
		r.Screened += d.Before.Screened
		r.WeakBefore += d.Before.Weak
		r.WeakAfter += d.After.Weak - d.EquivalentTasks
		r.Equivalent += d.EquivalentTasks
		r.NearMissBefore += d.NearMissBefore
		r.NearMissAfter += d.NearMissAfter
		r.EquivalentMutants += d.EquivalentMutants
		r.Undistinguished += len(d.Undistinguished)
		r.UndistinguishedTasks += d.UndistinguishedTasks
		r.Seconds += d.Seconds
		r.Cost.OriginalSeconds += d.Cost.OriginalSeconds
		r.Cost.VariantSeconds += d.Cost.VariantSeconds
		r.Cost.Answers += d.Cost.Answers
		r.Cost.OriginalRuns += d.Cost.OriginalRuns
		r.Cost.VariantsRuns += d.Cost.VariantsRuns
		r.Cost.Rounds = max(r.Cost.Rounds, d.Cost.Rounds)
		if len(d.StillWeak) > 0 {
			if r.StillWeak == nil {
				r.StillWeak = map[string][]string{}
			}
			r.StillWeak[d.Name] = d.StillWeak
		}
		for k, t := range d.Before.Kinds {
			r.Kinds[k].WeakBefore += t.WeakTasks
		}
		for k, t := range d.After.Kinds {
			r.Kinds[k].WeakAfter += t.WeakTasks - d.EquivalentByKind[k]
			r.Kinds[k].Equivalent += d.EquivalentByKind[k]
		}
		for name, l := range d.Levels {
			to := r.Levels[name]
			if to == nil {
				to = &LevelTally{}
				r.Levels[name] = to
			}
			to.Tasks += l.Tasks
			to.WeakBefore += l.WeakBefore
			to.WeakAfter += l.WeakAfter
		}
	}
	if r.Screened > 0 {
		r.ShareBefore = float64(r.WeakBefore) / float64(r.Screened)
		r.ShareAfter = float64(r.WeakAfter) / float64(r.Screened)
	}
	return r
}

func pct(n, of int) string {
	if of == 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f%%", 100*float64(n)/float64(of))
}

func sortedLevels(m map[string]*LevelTally) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// WriteText prints the report for a terminal.
func (r *Report) WriteText(w io.Writer) error {
	fmt.Fprintf(w, "mode %s: weak %d of %d screened tasks (%s) before, %d (%s) on the original and its variants; %d more weak only by equivalent mutants (%d mutants); %.1fs\n",
		r.Mode, r.WeakBefore, r.Screened, pct(r.WeakBefore, r.Screened), r.WeakAfter, pct(r.WeakAfter, r.Screened),
		r.Equivalent, r.EquivalentMutants, r.Seconds)
	fmt.Fprintf(w, "undistinguished: %d mutants of %d tasks no variant tells from their gold and no proof shows equivalent (counted weak; listed in --json)\n",
		r.Undistinguished, r.UndistinguishedTasks)
	fmt.Fprintf(w, "the nine near-miss kinds alone: weak %d (%s) before, %d (%s) after\n",
		r.NearMissBefore, pct(r.NearMissBefore, r.Screened), r.NearMissAfter, pct(r.NearMissAfter, r.Screened))
	for _, d := range r.Databases {
		fmt.Fprintf(w, "%s: %d tasks, %d candidates (%d dropped), %d golds empty everywhere\n", d.Name, d.Tasks, d.CandidatesTried, d.CandidatesDropped, d.GoldsEmpty)
		if len(d.LeftOut) > 0 {
			fmt.Fprintf(w, "  %d variants left out of one task's db_variants (its gold emptied through NOT IN, tied or repeating rows there; manifest's left_out)\n", len(d.LeftOut))
		}
		for _, v := range d.Variants {
			fmt.Fprintf(w, "  %-20s kills %4d (%4d new)  %4d statements  %6d rows (%s)  %s\n", v.Name, v.Kills, v.NewKills, len(v.Statements), v.Rows, v.shrunk(), v.Where())
		}
		d.Inferred.write(w, d.Name, "  ")
	}
	for name, why := range r.Skipped {
		fmt.Fprintf(w, "skipped %s: %s\n", name, why)
	}
	if r.Cost.Answers == 0 {
		fmt.Fprintln(w, "judging cost: not measured (--cost-rounds, or an original of over a million rows; sqlgym-bench variants-cost measures it)")
	} else {
		fmt.Fprintf(w, "judging cost: %d answers (a GRPO batch of each database's first tasks) take %.2fs on the originals, %.2fs on them and each task's variants (%.2fx; %d and %d statements; wall time over %d alternated rounds, this machine's load)\n",
			r.Cost.Answers, r.Cost.OriginalSeconds, r.Cost.OriginalSeconds+r.Cost.VariantSeconds, r.Cost.Ratio(), r.Cost.OriginalRuns, r.Cost.VariantsRuns, r.Cost.Rounds)
	}
	r.writeStillWeak(w, "", 10)
	fmt.Fprintf(w, "%-14s %9s %12s %12s\n", "level", "tasks", "weak before", "weak after")
	for _, l := range sortedLevels(r.Levels) {
		t := r.Levels[l]
		fmt.Fprintf(w, "%-14s %9d %12s %12s\n", l, t.Tasks, pct(t.WeakBefore, t.Tasks), pct(t.WeakAfter, t.Tasks))
	}
	fmt.Fprintf(w, "%-20s %12s %12s %11s\n", "kind", "weak before", "weak after", "equivalent")
	for _, k := range screen.Kinds {
		t := r.Kinds[k]
		_, err := fmt.Fprintf(w, "%-20s %12d %12d %11d\n", k, t.WeakBefore, t.WeakAfter, t.Equivalent)
		if err != nil {
			return err
		}
	}
	if r.Next != "" {
		_, err := fmt.Fprintf(w, "next: %s\n", r.Next)
		return err
	}
	return nil
}

// writeStillWeak lists the tasks still weak, per database, at most max
// a database (0: all).
func (r *Report) writeStillWeak(w io.Writer, prefix string, max int) {
	if len(r.StillWeak) == 0 {
		fmt.Fprintln(w, prefix+"still weak: none")
		return
	}
	dbs := make([]string, 0, len(r.StillWeak))
	for d := range r.StillWeak {
		dbs = append(dbs, d)
	}
	sort.Strings(dbs)
	for _, d := range dbs {
		ids := r.StillWeak[d]
		more := ""
		if max > 0 && len(ids) > max {
			more = fmt.Sprintf(" and %d more (manifest.json, still_weak)", len(ids)-max)
			ids = ids[:max]
		}
		fmt.Fprintf(w, "%sstill weak in %s (%d): %s%s\n", prefix, d, len(r.StillWeak[d]), strings.Join(ids, ", "), more)
	}
}

// WriteMarkdown writes the report as Markdown tables.
func (r *Report) WriteMarkdown(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# Variant databases (mode %s, seed %d)\n\n", r.Mode, r.Seed)
	fmt.Fprintf(&b, "Weak tasks: %d of %d screened (%s) before, %d (%s) judged on the original and its variants. "+
		"%d tasks are weak only by mutants equivalent to their gold under the schema's constraints (%d mutants), counted apart. Time: %.1fs.\n\n",
		r.WeakBefore, r.Screened, pct(r.WeakBefore, r.Screened), r.WeakAfter, pct(r.WeakAfter, r.Screened), r.Equivalent, r.EquivalentMutants, r.Seconds)
	fmt.Fprintf(&b, "Undistinguished: %d mutants of %d tasks no variant tells from their gold and no proof shows equivalent; counted weak, listed in manifest.json.\n\n",
		r.Undistinguished, r.UndistinguishedTasks)
	fmt.Fprintf(&b, "The nine near-miss kinds alone: %d weak (%s) before, %d (%s) after.\n\n",
		r.NearMissBefore, pct(r.NearMissBefore, r.Screened), r.NearMissAfter, pct(r.NearMissAfter, r.Screened))
	b.WriteString("| level | tasks | weak before | weak after |\n|---|---:|---:|---:|\n")
	for _, l := range sortedLevels(r.Levels) {
		t := r.Levels[l]
		fmt.Fprintf(&b, "| %s | %d | %s | %s |\n", l, t.Tasks, pct(t.WeakBefore, t.Tasks), pct(t.WeakAfter, t.Tasks))
	}
	b.WriteString("\n| mutant kind | weak tasks before | after | equivalent |\n|---|---:|---:|---:|\n")
	for _, k := range screen.Kinds {
		t := r.Kinds[k]
		fmt.Fprintf(&b, "| %s | %d | %d | %d |\n", k, t.WeakBefore, t.WeakAfter, t.Equivalent)
	}
	b.WriteString("\n| database | variant | kills | new kills | statements | rows | thinned rows | trimmed rows | digest |\n|---|---|---:|---:|---:|---:|---:|---:|---|\n")
	for _, d := range r.Databases {
		for _, v := range d.Variants {
			fmt.Fprintf(&b, "| %s | %s | %d | %d | %d | %d | %d | %d | %s |\n", d.Name, v.Name, v.Kills, v.NewKills, len(v.Statements), v.Rows, v.ThinnedRows, v.TrimmedRows, v.Digest[:min(12, len(v.Digest))])
		}
	}
	fmt.Fprintf(&b, "\nJudging cost: %d answers (a GRPO batch of 16 answers to each of the first 32 tasks of each database: the gold, the gold in a subquery, wrong and broken ones) take %.2fs on the originals and %.2fs on them and each task's variants, %.2fx (%d and %d statements a batch; wall time summed over %d rounds alternating the two, on the machine that made them, loaded as it was; `sqlgym-bench variants-cost` measures CPU too).\n\n",
		r.Cost.Answers, r.Cost.OriginalSeconds, r.Cost.OriginalSeconds+r.Cost.VariantSeconds, r.Cost.Ratio(), r.Cost.OriginalRuns, r.Cost.VariantsRuns, r.Cost.Rounds)
	b.WriteString("Tasks still weak (by a mutant not proved equivalent):\n\n")
	r.writeStillWeak(&b, "- ", 0)
	if r.Next != "" {
		fmt.Fprintf(&b, "\nNext: `%s`\n", r.Next)
	}
	inferredHead := false
	for _, d := range r.Databases {
		if d.Inferred == nil {
			continue
		}
		if !inferredHead {
			b.WriteString("\nConstraints the data and names imply, kept by every variant as if declared (`--implied-keys=false` keeps the declared ones only):\n\n")
			inferredHead = true
		}
		d.Inferred.write(&b, d.Name, "- ")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// Where is the variant's file, or a PostgreSQL variant's URL.
func (k Kept) Where() string {
	if k.Path != "" {
		return k.Path
	}
	return k.URL
}

// shrunk says what took rows out of a variant: the thinning's deletions,
// then the trim's.
func (k Kept) shrunk() string {
	if k.ThinnedRows == 0 {
		return fmt.Sprintf("%d trimmed", k.TrimmedRows)
	}
	return fmt.Sprintf("%d thinned, %d trimmed", k.ThinnedRows, k.TrimmedRows)
}
