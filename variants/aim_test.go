package variants

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/catalog"
	"github.com/sqlgym/sqlgym/engine/sqlite"
	"github.com/sqlgym/sqlgym/screen"
)

// itemsDB writes rows that hide the near misses only the aimed edits
// reach: every kind occurs among the 'ok' rows (a dropped status filter
// leaves COUNT(DISTINCT kind) as it is), no price sits on the mean of the
// 'ok' prices, no item took exactly 3 days, and no kind has exactly 9
// rows.
func itemsDB(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "items.sqlite")
	stmts := []string{`CREATE TABLE items (id INTEGER NOT NULL PRIMARY KEY, kind VARCHAR(10) NOT NULL, status VARCHAR(10) NOT NULL,
		price DECIMAL(8,2) NOT NULL, made DATE NOT NULL, done DATE NOT NULL)`}
	for i := 1; i <= 30; i++ {
		kind := []string{"a", "b", "c"}[i%3]
		status := []string{"ok", "bad"}[(i/3)%2]
		days := []int{1, 2, 5, 6}[i%4]
		stmts = append(stmts, fmt.Sprintf("INSERT INTO items VALUES (%d, '%s', '%s', %d.25, '2024-03-%02d', date('2024-03-%02d', '+%d days'))",
			i, kind, status, 10+i*7%23, 1+i%20, 1+i%20, days))
	}
	if err := sqlite.Create(context.Background(), path, stmts); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestAimedEditsKillWhatBoundariesCannot runs the generator on golds whose
// surviving mutants the aimed edits target (a relabel, a row tied with a
// subquery's mean, two dates exactly n days apart, a group of a HAVING
// threshold's size) and checks that the variants kill each. The tie and
// the date difference are killed by nothing else: with those edits
// turned off the test fails.
func TestAimedEditsKillWhatBoundariesCannot(t *testing.T) {
	path := itemsDB(t)
	tasks := []sqlgym.Task{
		{ID: "relabel", DB: "items", SQL: "SELECT COUNT(DISTINCT kind) FROM items WHERE status = 'ok'"},
		{ID: "tie", DB: "items", SQL: "SELECT id FROM items WHERE status = 'ok' AND price > (SELECT AVG(price) FROM items WHERE status = 'ok')"},
		{ID: "days", DB: "items", SQL: "SELECT COUNT(*) FROM items WHERE made IS NOT NULL AND done IS NOT NULL AND julianday(done) - julianday(made) > 3"},
		{ID: "having", DB: "items", SQL: "SELECT kind FROM items GROUP BY kind HAVING COUNT(*) > 9"},
	}
	want := map[string]string{ // task -> the mutant (kind: text) the original cannot tell
		"relabel": "drop_conjunct:SELECT COUNT(DISTINCT kind) FROM items",
		"tie":     "flip_comparison:price >=",
		"days":    "flip_comparison:>= 3",
		"having":  "flip_comparison:>= 9",
	}
	res := generateAndCheckKills(t, "items", path, tasks, want, 3)
	if len(res.Variants) == 0 || len(res.Variants) > 3 {
		t.Fatalf("%d variants kept, want 1 to 3", len(res.Variants))
	}
}

// generateAndCheckKills runs the generator (3 variants at most, seed) on
// the tasks of the SQLite database at path, named db, and checks that
// for each task of want (task -> "kind:text", a mutant the original
// cannot tell) such a mutant is killed and no longer weak afterwards.
func generateAndCheckKills(t *testing.T, db, path string, tasks []sqlgym.Task, want map[string]string, seed uint64) *DBResult {
	t.Helper()
	cat, err := catalog.New(catalog.Config{Refs: []string{db + "=sqlite:" + path}, CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer cat.Close()
	ctx := context.Background()
	g, err := NewGenerator(ctx, cat, db, "sqlite:"+path, tasks, Options{MaxVariants: 3, Seed: seed})
	if err != nil {
		t.Fatal(err)
	}
	res, err := g.Run(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for id, w := range want {
		kind, text, _ := strings.Cut(w, ":")
		// Killed lists only mutants the original could not tell.
		killed := false
		for _, m := range res.Killed[id] {
			if string(m.Kind) == kind && strings.Contains(m.SQL, text) {
				killed = true
			}
		}
		if !killed {
			t.Errorf("task %s: no %s mutant with %q killed; killed %+v", id, kind, text, res.Killed[id])
		}
	}
	// The kills are real: on the original the mutants were weak, and
	// after they are not.
	for _, tk := range res.TasksAfter() {
		kind, text, _ := strings.Cut(want[tk.ID], ":")
		for _, m := range screen.WeakMutants(tk) {
			if string(m.Kind) == kind && strings.Contains(m.SQL, text) {
				t.Errorf("task %s: %s still weak after the variants", tk.ID, m.SQL)
			}
		}
	}
	return res
}
