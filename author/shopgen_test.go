package author

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/catalog"
	"github.com/sqlgym/sqlgym/engine/sqlite"
	"github.com/sqlgym/sqlgym/screen"
	"github.com/sqlgym/sqlgym/shopdb"
	"github.com/sqlgym/sqlgym/verify"
)

// The built-in shop task set is this run of synth; shopdb/tasks.jsonl
// holds its output and a test keeps the two equal.
const (
	ShopSeed        = 20250101
	ShopN           = 1000
	ShopHoldoutFrac = 0.2
)

// ShopTasks (test-only: the shipped file is its output) generates the built-in shop task set in dir (a scratch folder
// for the SQLite file): synth with ShopSeed through the filter until ShopN
// tasks, screened for weak tasks (marked, not dropped), split by id hash
// with an empty salt and ShopHoldoutFrac.
func ShopTasks(ctx context.Context, dir string) ([]sqlgym.Task, Counts, error) {
	path := filepath.Join(dir, "shop.sqlite")
	if err := sqlite.Create(ctx, path, shopdb.Statements()); err != nil {
		return nil, Counts{}, fmt.Errorf("create the shop database: %w", err)
	}
	open := func(context.Context) (sqlgym.Engine, error) { return sqlite.Open(path, sqlite.Options{}) }
	s, err := PrepareSynth(ctx, open, ShopLexicon(), 1, 50)
	if err != nil {
		return nil, Counts{}, err
	}
	defer s.Close()
	var tasks []sqlgym.Task
	cnt, err := Run(ctx, Config{
		DB: shopdb.Name, Teacher: s.Teacher, Schema: s.Schema, Filter: s.Filter, N: ShopN, Seed: ShopSeed,
		Emit: func(t sqlgym.Task) error { tasks = append(tasks, t); return nil },
	})
	if err != nil {
		return nil, cnt, err
	}
	// The weak-task screen marks the tasks whose reward cannot tell a
	// near-miss from the answer on this data (weak, weak_mutants), so a
	// user can see the share or drop them (sqlgym screen --drop-weak).
	// The marks are the near-miss kinds' (the model-mistake kinds came
	// later and are what `sqlgym variants` reports on), so the shipped
	// file keeps its meaning.
	cat, err := catalog.New(catalog.Config{Refs: []string{shopdb.Name + "=sqlite:" + path}})
	if err != nil {
		return nil, cnt, err
	}
	defer cat.Close()
	v := verify.New(cat, tasks, verify.Config{})
	if _, tasks, err = screen.Screen(ctx, v, tasks, screen.Options{Kinds: screen.NearMissKinds}); err != nil {
		return nil, cnt, fmt.Errorf("screen the shop tasks: %w", err)
	}
	sqlgym.AssignSplits(tasks, "", ShopHoldoutFrac)
	return tasks, cnt, nil
}
