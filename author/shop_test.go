package author

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"slices"
	"testing"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/engine/sqlite"
	"github.com/sqlgym/sqlgym/shopdb"
	"github.com/sqlgym/sqlgym/sqltext"
)

var update = flag.Bool("update", false, "rewrite ../shopdb/tasks.jsonl from the generator")

// TestShopTaskSet regenerates the built-in task set and requires the
// embedded file to be exactly that, so the two cannot drift.
func TestShopTaskSet(t *testing.T) {
	tasks, cnt, err := ShopTasks(context.Background(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := sqlgym.WriteTasks(&buf, tasks); err != nil {
		t.Fatal(err)
	}
	if *update {
		if err := os.WriteFile("../shopdb/tasks.jsonl", buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("wrote ../shopdb/tasks.jsonl: %d tasks, counts %+v", len(tasks), cnt)
	}
	if !*update && !bytes.Equal(buf.Bytes(), shopdb.TasksJSONL()) {
		t.Fatalf("shopdb/tasks.jsonl differs from what the generator writes; run go test ./author -run TestShopTaskSet -update")
	}
	if len(tasks) < 800 {
		t.Fatalf("%d tasks, want at least 800", len(tasks))
	}
	hold := 0
	for _, tk := range tasks {
		if tk.Split == sqlgym.SplitHoldout {
			hold++
		}
		if tk.Source != SourceSynth || !slices.Contains(Levels, tk.Complexity) {
			t.Fatalf("task %s: source %q complexity %q", tk.ID, tk.Source, tk.Complexity)
		}
	}
	if hold < 140 || hold > len(tasks)/3 {
		t.Fatalf("%d of %d tasks held out, want about a fifth and at least 140", hold, len(tasks))
	}
	for _, l := range Levels {
		if cnt.PerLevel[l] < 50 {
			t.Errorf("level %s has %d tasks, want at least 50", l, cnt.PerLevel[l])
		}
	}
}

// TestShopTasksPassFilter re-runs every embedded gold on a fresh shop
// file, on two separately opened engines: each returns 1 to 50 rows, the
// same rows both times. It checks the file, independently of the filter's
// code.
func TestShopTasksPassFilter(t *testing.T) {
	tasks, err := shopdb.Tasks()
	if err != nil {
		t.Fatal(err)
	}
	path := shopFile(t)
	a, err := sqlite.Open(path, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := sqlite.Open(path, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	ctx := context.Background()
	sqls, questions := map[string]string{}, map[string]string{}
	for _, tk := range tasks {
		if tk.DB != shopdb.Name || tk.Question == "" {
			t.Fatalf("task %s: db %q question %q", tk.ID, tk.DB, tk.Question)
		}
		if id := TaskID(tk.DB, tk.Complexity, tk.SQL); id != tk.ID {
			t.Fatalf("task %s: id should be %s", tk.ID, id)
		}
		n := sqltext.Normalize(tk.SQL)
		if prev, dup := sqls[n]; dup {
			t.Fatalf("tasks %s and %s have the same SQL", prev, tk.ID)
		}
		sqls[n] = tk.ID
		q := NormalizeQuestion(tk.Question)
		if prev, dup := questions[q]; dup {
			t.Fatalf("tasks %s and %s ask the same question", prev, tk.ID)
		}
		questions[q] = tk.ID
		r1, err := a.Query(ctx, tk.SQL, sqlgym.Limits{})
		if err != nil {
			t.Fatalf("task %s: %v\n%s", tk.ID, err, tk.SQL)
		}
		r2, err := b.Query(ctx, tk.SQL, sqlgym.Limits{})
		if err != nil {
			t.Fatalf("task %s, second run: %v", tk.ID, err)
		}
		if len(r1.Rows) < 1 || len(r1.Rows) > 50 {
			t.Fatalf("task %s returns %d rows\n%s", tk.ID, len(r1.Rows), tk.SQL)
		}
		if !sameResult(r1, r2, sqltext.HasTopLevelOrderBy(tk.SQL)) {
			t.Fatalf("task %s returns different rows on two runs", tk.ID)
		}
	}
}

// sameResult compares two runs exactly (kind and value of every cell), in
// order when the SQL orders its rows, else as multisets. It is the test's
// own copy so the check does not lean on the filter's code.
func sameResult(a, b *sqlgym.ResultSet, ordered bool) bool {
	if !slices.Equal(a.Columns, b.Columns) || len(a.Rows) != len(b.Rows) {
		return false
	}
	key := func(row []sqlgym.Value) string { return fmt.Sprintf("%#v", row) }
	ka, kb := make([]string, len(a.Rows)), make([]string, len(b.Rows))
	for i := range a.Rows {
		ka[i], kb[i] = key(a.Rows[i]), key(b.Rows[i])
	}
	if !ordered {
		slices.Sort(ka)
		slices.Sort(kb)
	}
	return slices.Equal(ka, kb)
}
