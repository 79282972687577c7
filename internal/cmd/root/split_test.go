package root

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/dataset"
	"github.com/sqlgym/sqlgym/internal/testenv"

	"github.com/sqlgym/sqlgym/internal/cmd/cmdkit"
	datacmd "github.com/sqlgym/sqlgym/internal/cmd/data"
)

// Spider dev asks most questions twice with one gold: split by id alone
// held out 143 of 192 tasks beside their train twin (issue 15). Grouped,
// none is, and only the twins that were apart move.
func TestSplitKeepsSpiderParaphrasesTogether(t *testing.T) {
	data := testenv.SharedData(t)
	dir := t.TempDir()
	tasks := filepath.Join(dir, "spider.jsonl")
	if code, _, errOut := run(t, "import", "spider", filepath.Join(data, "spider_dev"), "--out", tasks); code != cmdkit.ExitOK {
		t.Fatalf("import: exit %d: %s", code, errOut)
	}
	split := func(in, out string, args ...string) datacmd.SplitResult {
		t.Helper()
		code, stdout, errOut := run(t, append([]string{"split", "--tasks", in, "--out", out, "--json"}, args...)...)
		if code != cmdkit.ExitOK {
			t.Fatalf("split %v: exit %d: %s", args, code, errOut)
		}
		var res datacmd.SplitResult
		if err := json.Unmarshal([]byte(stdout), &res); err != nil {
			t.Fatal(err)
		}
		return res
	}
	byID := filepath.Join(dir, "by-id.jsonl")
	old := split(tasks, byID, "--group-by", "none")
	if old.SharedAfter == 0 {
		t.Fatal("split by id alone left no held-out task beside a train twin: the data no longer shows the problem")
	}
	grouped := filepath.Join(dir, "grouped.jsonl")
	code, stdout, errOut := run(t, "split", "--tasks", byID, "--out", grouped)
	if code != cmdkit.ExitOK {
		t.Fatalf("split: exit %d: %s", code, errOut)
	}
	if !strings.Contains(errOut, "warning:") || !strings.Contains(errOut, "held-out tasks have a train task with the same gold") {
		t.Fatalf("split did not warn about the input's shared golds: %q", errOut)
	}
	if !strings.Contains(stdout, "before, 0 after") {
		t.Fatalf("split output %q", stdout)
	}
	res := split(byID, grouped, "--replace")
	if res.SharedBefore != old.SharedAfter || res.SharedAfter != 0 {
		t.Fatalf("held-out tasks with a train twin: %d before, %d after; want %d, 0", res.SharedBefore, res.SharedAfter, old.SharedAfter)
	}
	// Only grouped tasks other than their group's smallest id may move:
	// at most one per separated pair.
	if res.Moved == 0 || res.Moved > old.SharedAfter {
		t.Fatalf("%d tasks moved; want between 1 and %d", res.Moved, old.SharedAfter)
	}
	got, err := sqlgym.ReadTasks(grouped)
	if err != nil {
		t.Fatal(err)
	}
	if s := dataset.SharedGolds(got); len(s) != 0 {
		t.Fatalf("the written file still shares %d golds between its splits", len(s))
	}
	// Grouping by database puts each database in one split.
	dbSplit := filepath.Join(dir, "db.jsonl")
	split(byID, dbSplit, "--group-by", "db")
	got, err = sqlgym.ReadTasks(dbSplit)
	if err != nil {
		t.Fatal(err)
	}
	of := map[string]string{}
	for _, tk := range got {
		if s, ok := of[tk.DB]; ok && s != tk.Split {
			t.Fatalf("database %s has tasks in both splits", tk.DB)
		}
		of[tk.DB] = tk.Split
	}
}

// split reads --tasks like every other command: "shop" is the built-in set.
func TestSplitBuiltInShop(t *testing.T) {
	out := filepath.Join(t.TempDir(), "shop.jsonl")
	code, _, errOut := run(t, "split", "--tasks", "shop", "--out", out, "--holdout-frac", "0.5")
	if code != cmdkit.ExitOK {
		t.Fatalf("split --tasks shop: exit %d: %s", code, errOut)
	}
	got, err := sqlgym.ReadTasks(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) < 500 {
		t.Fatalf("%d tasks written from the built-in set", len(got))
	}
	code, _, errOut = run(t, "split", "--tasks", "shop", "--out", out, "--group-by", "table")
	if code != cmdkit.ExitUsage || !strings.Contains(errOut, "gold, sql, db or none") {
		t.Fatalf("bad --group-by: exit %d: %s", code, errOut)
	}
}
