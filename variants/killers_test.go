package variants

import (
	"context"
	"slices"
	"testing"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/verify"
)

// Each task lists the variants that first kill one of its mutants and no
// other; a task none of whose mutants a variant kills lists its database
// alone. The weak marks are judged on those lists, and judging the cost
// batch on them runs more statements than the original alone only for
// the tasks that list a variant.
func TestTasksListOnlyTheVariantsThatKillTheirMutants(t *testing.T) {
	path := toyDB(t)
	tasks := append(slices.Clone(toyTasks), sqlgym.Task{ID: "all", DB: "toy", SQL: "SELECT order_id, customer_id, order_date, amount, status FROM orders"})
	res, cat := generateTasks(t, path, 7, 3, tasks)
	if len(res.Variants) == 0 {
		t.Fatalf("kept no variant")
	}
	urlOf := map[string]string{}
	after := res.TasksAfter()
	byID := map[string]sqlgym.Task{}
	for _, t := range after {
		byID[t.ID] = t
	}
	for _, k := range res.Variants {
		urlOf[k.Name] = "sqlite:" + k.Path
	}
	listed := 0
	for _, task := range after {
		want := []string{}
		for _, k := range res.Variants {
			for _, m := range res.Killed[task.ID] {
				if m.Variant == k.Name && !slices.Contains(want, urlOf[k.Name]) {
					want = append(want, urlOf[k.Name])
				}
			}
		}
		if len(want) == 0 {
			want = []string{"toy"}
		} else {
			listed++
		}
		if !slices.Equal(task.DBVariants, want) {
			t.Errorf("task %s lists %v, want %v (the variants that first kill its mutants)", task.ID, task.DBVariants, want)
		}
	}
	if !slices.Equal(byID["all"].DBVariants, []string{"toy"}) {
		t.Errorf("a task with no weak mutant lists %v, want its database alone", byID["all"].DBVariants)
	}
	if listed == 0 {
		t.Fatalf("no task lists a variant")
	}
	// The cost measure: the statements run with the variants exceed the
	// original's by the runs on the variants the tasks list, no more.
	ctx := context.Background()
	batch := CostBatch(after, 0, 1, func(string) sqlgym.Dialect { return sqlgym.DialectSQLite })
	if len(batch) != CostSamples*len(after) {
		t.Fatalf("batch of %d answers, want %d", len(batch), CostSamples*len(after))
	}
	own, err := MeasureJudging(ctx, cat, after, batch, verify.Config{}, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	all := slices.Clone(after)
	for i := range all {
		all[i].DBVariants = nil
		for _, k := range res.Variants {
			all[i].DBVariants = append(all[i].DBVariants, urlOf[k.Name])
		}
	}
	every, err := MeasureJudging(ctx, cat, all, batch, verify.Config{}, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	if own.OriginalRuns != every.OriginalRuns || own.OriginalRuns == 0 {
		t.Errorf("the original alone ran %d and %d statements: want the same, not 0", own.OriginalRuns, every.OriginalRuns)
	}
	if !(own.OriginalRuns < own.VariantsRuns && own.VariantsRuns < every.VariantsRuns) {
		t.Errorf("statements: %d on the original, %d with each task's variants, %d with every variant: want strictly more each time",
			own.OriginalRuns, own.VariantsRuns, every.VariantsRuns)
	}
}
