package shopdb

import (
	"encoding/json"
	"slices"
	"testing"
)

// A variants.json written before the per-task lists (no "tasks") still
// loads and judges every task on every variant; one with lists gives a
// named task its own (an empty list: the shop alone) and any other task
// every variant.
func TestVariantSetTaskLists(t *testing.T) {
	var old VariantSet
	if err := json.Unmarshal([]byte(`{"seed":1,"variants":[{"name":"shop_v1","statements":["DELETE FROM reviews"]}]}`), &old); err != nil {
		t.Fatal(err)
	}
	if names, ok := old.TaskVariants("shop_0001"); ok || names != nil {
		t.Errorf("a set without lists: %v, %v; want every variant", names, ok)
	}
	var lists VariantSet
	if err := json.Unmarshal([]byte(`{"seed":1,"variants":[],"tasks":{"a":["shop_v2"],"b":[]}}`), &lists); err != nil {
		t.Fatal(err)
	}
	if names, ok := lists.TaskVariants("a"); !ok || !slices.Equal(names, []string{"shop_v2"}) {
		t.Errorf("task a: %v, %v", names, ok)
	}
	if names, ok := lists.TaskVariants("b"); !ok || len(names) != 0 {
		t.Errorf("task b, the shop alone: %v, %v", names, ok)
	}
	if _, ok := lists.TaskVariants("c"); ok {
		t.Error("a task the set does not name must get every variant")
	}
	shipped, err := Variants()
	if err != nil {
		t.Fatal(err)
	}
	for id, names := range shipped.Tasks {
		for _, n := range names {
			if !slices.ContainsFunc(shipped.Variants, func(v Variant) bool { return v.Name == n }) {
				t.Errorf("task %s names %s, which the shipped set does not hold", id, n)
			}
		}
	}
}
