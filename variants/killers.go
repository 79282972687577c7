package variants

import (
	"strings"

	"github.com/sqlgym/sqlgym"
)

// Per-task variants: a task is judged on the original and only on the
// variants that kill one of its own surviving mutants, the first kept one
// for each (killedBy), not on every variant of its database. Each variant
// costs one more run of every answer that matched on the original (the
// verifier runs the variants only then), and on a small database that run
// costs what the original's does whatever the variant's rows (issue 24:
// Spider's world_1 judged a 512-answer batch in 2.07x the original's
// time on its 3 variants). A variant that kills none of a task's mutants
// only adds that cost to the task, and the chance of flipping a right
// answer. A task none of whose mutants a variant kills lists its own
// database alone, so that a reader does not fall back to every variant
// the catalog finds (verify's planner skips an entry that resolves to
// the original). Options.AllVariants gives every task every variant
// fair to it.

// taskVariants narrows each task's db_variants, already the variants fair
// to it (assignVariants), to those of urls (the original first, then the
// kept variants in order) that first kill one of its mutants; all leaves
// the fair list as it is. When the first killer of one of a task's
// mutants was left out of the task as unfair, another variant may still
// kill that mutant, which killedBy does not record: such a task keeps
// every fair variant rather than lose the kill. A task whose gold reads a
// foreign key that a fair variant leaves NULL where the original never
// does (nulls, per variant; nullkeys.go) keeps that variant too.
func taskVariants(tasks []sqlgym.Task, d sqlgym.Dialect, db string, vars []Kept, urls []string, killedBy map[string]string, nulls [][]nullKey, all bool) {
	if all {
		return
	}
	byName := map[string]string{}
	for i, k := range vars {
		byName[k.Name] = urls[i+1]
	}
	need := map[string]map[string]bool{} // task id -> variant names
	for id, v := range killedBy {
		task, _, ok := strings.Cut(id, "\x00")
		if !ok || byName[v] == "" {
			continue
		}
		if need[task] == nil {
			need[task] = map[string]bool{}
		}
		need[task][v] = true
	}
	for i := range tasks {
		t := &tasks[i]
		fair := map[string]bool{}
		for _, u := range t.DBVariants {
			fair[u] = true
		}
		var list []string
		lost := false
		golds := t.GoldsFor(d)
		for i, k := range vars { // in the variants' order
			if !need[t.ID][k.Name] {
				if i < len(nulls) && fair[byName[k.Name]] && readsKey(golds, nulls[i]) {
					list = append(list, byName[k.Name])
				}
				continue
			}
			if !fair[byName[k.Name]] {
				lost = true
				break
			}
			list = append(list, byName[k.Name])
		}
		if lost {
			continue
		}
		if len(list) == 0 {
			list = []string{db}
		}
		t.DBVariants = list
	}
}
