package screen

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/catalog"
	"github.com/sqlgym/sqlgym/engine/sqlite"
	"github.com/sqlgym/sqlgym/verify"
	"github.com/sqlgym/sqlgym/verify/compare"
)

// toyDB builds a database made to hide some mistakes: every item is
// active, names are unique, one item is yellow, non-red colours have one
// item each, every tag has its item and no price is 15.
func toyDB(t *testing.T) *catalog.Catalog {
	t.Helper()
	path := filepath.Join(t.TempDir(), "toy.sqlite")
	err := sqlite.Create(context.Background(), path, []string{
		"CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT NOT NULL, color TEXT NOT NULL, price INTEGER NOT NULL, active INTEGER NOT NULL)",
		"INSERT INTO items VALUES (1,'apple','red',10,1),(2,'banana','yellow',20,1),(3,'cherry','red',30,1),(4,'date','brown',40,1),(5,'elder','red',50,1),(6,'fig','purple',60,1)",
		"CREATE TABLE tags (item_id INTEGER NOT NULL REFERENCES items(id), tag TEXT NOT NULL)",
		"INSERT INTO tags VALUES (1,'fruit'),(3,'fruit'),(5,'tree')",
	})
	if err != nil {
		t.Fatal(err)
	}
	cat, err := catalog.New(catalog.Config{Refs: []string{"toy=sqlite:" + path}, CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cat.Close() })
	return cat
}

func toyTasks() []sqlgym.Task {
	mk := func(id, sql string) sqlgym.Task { return sqlgym.Task{ID: id, DB: "toy", Question: id, SQL: sql} }
	ts := []sqlgym.Task{
		mk("where", "SELECT name FROM items WHERE active = 1 AND color = 'red'"),
		mk("distinct", "SELECT DISTINCT name FROM items WHERE price > 15"),
		mk("single_row", "SELECT name FROM items WHERE color = 'yellow' ORDER BY price DESC LIMIT 1"),
		mk("topk", "SELECT name FROM items WHERE price >= 30 ORDER BY price LIMIT 2"),
		mk("sum", "SELECT color, SUM(price) FROM items GROUP BY color"),
		mk("max", "SELECT color, MAX(price) FROM items WHERE color <> 'red' GROUP BY color"),
		mk("join_strong", "SELECT i.name, t.tag FROM items i JOIN tags t ON t.item_id = i.id"),
		mk("join_weak", "SELECT t.tag FROM tags t JOIN items i ON i.id = t.item_id"),
		mk("count", "SELECT COUNT(name) FROM items WHERE color = 'yellow'"),
		mk("gold_error", "SELECT nope FROM items WHERE price > 1"),
		mk("order", "SELECT name FROM items ORDER BY price"),
	}
	// A stale mark from an earlier screen must go.
	ts[3].Extra = map[string]json.RawMessage{"weak": json.RawMessage("true"), "weak_mutants": json.RawMessage(`[]`), "keep": json.RawMessage(`1`)}
	return ts
}

func screenToy(t *testing.T, mode compare.Mode, opt Options) (Report, map[string]sqlgym.Task) {
	t.Helper()
	tasks := toyTasks()
	v := verify.New(toyDB(t), tasks, verify.Config{Mode: mode})
	rep, out, err := Screen(context.Background(), v, tasks, opt)
	if err != nil {
		t.Fatal(err)
	}
	if len(out) != len(tasks) {
		t.Fatalf("%d tasks back, want %d", len(out), len(tasks))
	}
	byID := map[string]sqlgym.Task{}
	for i, tk := range out {
		if tk.ID != tasks[i].ID {
			t.Fatalf("task %d is %s, want %s: order changed", i, tk.ID, tasks[i].ID)
		}
		byID[tk.ID] = tk
	}
	return rep, byID
}

func TestScreenVerdicts(t *testing.T) {
	rep, got := screenToy(t, compare.Multiset, Options{Kinds: NearMissKinds})
	want := map[string][]Mutant{
		"where":      {{Kind: DropConjunct, SQL: "SELECT name FROM items WHERE color = 'red'"}},
		"distinct":   {{Kind: FlipComparison, SQL: "SELECT DISTINCT name FROM items WHERE price >= 15"}, {Kind: DropDistinct, SQL: "SELECT name FROM items WHERE price > 15"}},
		"single_row": {{Kind: FlipOrder, SQL: "SELECT name FROM items WHERE color = 'yellow' ORDER BY price ASC LIMIT 1"}, {Kind: LimitOffByOne, SQL: "SELECT name FROM items WHERE color = 'yellow' ORDER BY price DESC LIMIT 2"}},
		"max":        {{Kind: SwapAggregate, SQL: "SELECT color, MIN(price) FROM items WHERE color <> 'red' GROUP BY color"}},
		"join_weak":  {{Kind: JoinType, SQL: "SELECT t.tag FROM tags t LEFT JOIN items i ON i.id = t.item_id"}},
		"count":      {{Kind: CountDistinct, SQL: "SELECT COUNT(DISTINCT name) FROM items WHERE color = 'yellow'"}},
	}
	for id, tk := range got {
		w, isWeak := want[id]
		if IsWeak(tk) != isWeak {
			t.Errorf("task %s: weak %v, want %v (mutants %v)", id, IsWeak(tk), isWeak, WeakMutants(tk))
			continue
		}
		if !slices.Equal(WeakMutants(tk), w) {
			t.Errorf("task %s: weak mutants\n got %v\nwant %v", id, WeakMutants(tk), w)
		}
	}
	if tk := got["topk"]; tk.Extra["weak"] != nil || tk.Extra["weak_mutants"] != nil || string(tk.Extra["keep"]) != "1" {
		t.Errorf("a strong task keeps its other fields and loses the stale mark: %v", tk.Extra)
	}
	if rep.Tasks != 11 || rep.Screened != 10 || rep.Weak != 6 || rep.GoldErrors != 1 || rep.NoMutants != 0 || rep.InfraErrors != 0 {
		t.Errorf("report %+v: want 11 tasks, 10 screened, 6 weak, 1 gold error", rep)
	}
	if rep.WeakShare != 0.6 {
		t.Errorf("weak share %v, want 0.6", rep.WeakShare)
	}
	if fo := rep.Kinds[FlipOrder]; *fo != (Tally{Judged: 3, Invisible: 1, WeakTasks: 1}) {
		t.Errorf("flip_order tally %+v, want 3 judged (single_row, topk, order), 1 invisible", *fo)
	}
	if jt := rep.Kinds[JoinType]; *jt != (Tally{Judged: 2, Invisible: 1, WeakTasks: 1}) {
		t.Errorf("join_type tally %+v", *jt)
	}
	if rep.Outcomes[sqlgym.OutcomeCorrect] != 8 || rep.Outcomes[sqlgym.OutcomeGoldError] != 0 || rep.Mutants != 26 {
		t.Errorf("outcomes %v of %d mutants: want 8 correct of 26 (the gold error's mutants not judged)", rep.Outcomes, rep.Mutants)
	}
}

// Under bird's set comparison, order and duplicates are the mode's own
// blind spots: those mutants are not judged, so they cannot make a task
// weak.
func TestScreenSkipsWhatTheModeIgnores(t *testing.T) {
	rep, got := screenToy(t, compare.Bird, Options{Kinds: NearMissKinds})
	if m := WeakMutants(got["distinct"]); len(m) != 1 || m[0].Kind != FlipComparison {
		t.Errorf("bird: distinct task weak by %v, want flip_comparison alone", m)
	}
	if IsWeak(got["order"]) {
		t.Error("bird: order-only task marked weak")
	}
	if rep.NoMutants != 1 || rep.Kinds[FlipOrder].SkippedByMode != 1 || rep.Kinds[DropDistinct].SkippedByMode != 1 {
		t.Errorf("bird: report %+v; want the order task unscreened and one skipped flip_order and drop_distinct", rep)
	}
	if rep.Weak != 6 || rep.Screened != 9 {
		t.Errorf("bird: %d weak of %d screened, want 6 of 9", rep.Weak, rep.Screened)
	}

	rep, got = screenToy(t, compare.TestSuite, Options{Kinds: NearMissKinds})
	if m := WeakMutants(got["count"]); len(m) != 0 {
		t.Errorf("testsuite strips DISTINCT: count task weak by %v", m)
	}
	if rep.Kinds[CountDistinct].Judged != 0 || rep.Kinds[CountDistinct].SkippedByMode != 1 {
		t.Errorf("testsuite: count_distinct %+v, want none judged, 1 skipped", *rep.Kinds[CountDistinct])
	}
}

func TestScreenKindsAndDropWeak(t *testing.T) {
	rep, got := screenToy(t, compare.Multiset, Options{Kinds: []Kind{JoinType}})
	if len(rep.Kinds) != 1 || rep.Weak != 1 || !IsWeak(got["join_weak"]) || IsWeak(got["where"]) {
		t.Errorf("join_type alone: report %+v", rep)
	}
	if rep.NoMutants != 8 {
		t.Errorf("join_type alone: %d tasks without mutants, want 8", rep.NoMutants)
	}
	var all []sqlgym.Task
	for _, tk := range toyTasks() {
		all = append(all, got[tk.ID])
	}
	kept := DropWeak(all)
	// join_weak goes; topk's stale mark went although it had no join.
	if len(kept) != len(all)-1 {
		t.Errorf("DropWeak kept %d of %d", len(kept), len(all))
	}
	// The marks survive a task file round trip.
	var buf bytes.Buffer
	if err := sqlgym.WriteTasks(&buf, all); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), `"weak":true,"weak_mutants":[{"kind":"join_type","sql":"SELECT t.tag FROM tags t LEFT JOIN items i ON i.id = t.item_id"}]`) {
		t.Errorf("task file lacks the weak fields:\n%s", buf.String())
	}
	back, err := sqlgym.DecodeTasks(&buf, "t.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if n := len(DropWeak(back)); n != len(all)-1 {
		t.Errorf("after a round trip DropWeak kept %d", n)
	}
}

func TestScreenStopsWithContext(t *testing.T) {
	tasks := toyTasks()
	v := verify.New(toyDB(t), tasks, verify.Config{})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, err := Screen(ctx, v, tasks, Options{}); err == nil {
		t.Fatal("a cancelled screen returned no error")
	}
}
