package screen

import (
	"context"
	"testing"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/schema"
	"github.com/sqlgym/sqlgym/verify"
	"github.com/sqlgym/sqlgym/verify/compare"
)

// TestScreenProofsCountEquivalentsApart: with Options.Proofs, a task
// weak only by a mutant proved equivalent to its gold (the LEFT JOIN of
// join_weak, through a NOT NULL foreign key) is not weak, is counted
// apart, and loses its weak mark; without it, the same task is weak.
func TestScreenProofsCountEquivalentsApart(t *testing.T) {
	cat := toyDB(t)
	ctx := context.Background()
	eng, err := cat.Engine(ctx, "toy")
	if err != nil {
		t.Fatal(err)
	}
	s, err := schema.Load(ctx, eng, 0)
	if err != nil {
		t.Fatal(err)
	}
	tasks := []sqlgym.Task{{ID: "join_weak", DB: "toy", SQL: "SELECT t.tag FROM tags t JOIN items i ON i.id = t.item_id"}}
	run := func(proofs bool) (Report, []sqlgym.Task) {
		v := verify.New(cat, tasks, verify.Config{Mode: compare.Multiset})
		rep, out, err := Screen(ctx, v, tasks, Options{Kinds: []Kind{JoinType}, Schemas: map[string]*sqlgym.Schema{"toy": s}, Proofs: proofs})
		if err != nil {
			t.Fatal(err)
		}
		return rep, out
	}
	rep, out := run(false)
	if rep.Weak != 1 || !IsWeak(out[0]) {
		t.Fatalf("without proofs: weak %d, marked %v; want the LEFT JOIN mutant to survive", rep.Weak, IsWeak(out[0]))
	}
	rep, out = run(true)
	if rep.Weak != 0 || rep.Equivalent != 1 || rep.EquivalentMutants < 1 || IsWeak(out[0]) || rep.Screened != 1 {
		t.Errorf("with proofs: weak %d, equivalent %d (%d mutants), screened %d, marked %v; want 0, 1, at least 1, 1, false",
			rep.Weak, rep.Equivalent, rep.EquivalentMutants, rep.Screened, IsWeak(out[0]))
	}
}
