package dataset_test

import (
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/dataset"
)

func TestSplitGroupsMergeNormalisedGolds(t *testing.T) {
	tasks := []sqlgym.Task{
		{ID: "a", DB: "x", SQL: "SELECT count(*) FROM singer"},
		{ID: "b", DB: "x", SQL: "select  COUNT(*)\nfrom singer;"},
		{ID: "c", DB: "y", SQL: "SELECT count(*) FROM singer"},
		{ID: "d", DB: "x", SQL: "SELECT count(*) FROM singer WHERE name = 'Joe'"},
		{ID: "e", DB: "x", SQL: "SELECT count(*) FROM singer WHERE name = 'JOE'"},
	}
	same := func(g []string, i, j int) bool { return g[i] == g[j] }
	gold, err := dataset.SplitGroups(tasks, dataset.GroupGoldDB)
	if err != nil {
		t.Fatal(err)
	}
	if !same(gold, 0, 1) || same(gold, 0, 2) || same(gold, 3, 4) {
		t.Fatalf("gold groups %q: want a=b, a!=c (other database), d!=e (string literals differ)", gold)
	}
	sql, _ := dataset.SplitGroups(tasks, dataset.GroupSQL)
	if !same(sql, 0, 1) || !same(sql, 0, 2) || same(sql, 0, 3) {
		t.Fatalf("sql groups %q: want a=b=c across databases, not d", sql)
	}
	db, _ := dataset.SplitGroups(tasks, dataset.GroupDB)
	if !same(db, 0, 3) || same(db, 0, 2) {
		t.Fatalf("db groups %q", db)
	}
	if _, err := dataset.SplitGroups(tasks, "table"); err == nil {
		t.Fatal("an unknown grouping was accepted")
	}
}

func TestSharedGoldsNamesTheTwins(t *testing.T) {
	tasks := []sqlgym.Task{
		{ID: "t1", DB: "x", SQL: "SELECT 1", Split: sqlgym.SplitTrain},
		{ID: "h1", DB: "x", SQL: "select 1", Split: sqlgym.SplitHoldout},
		{ID: "h2", DB: "y", SQL: "SELECT 1", Split: sqlgym.SplitHoldout}, // other database
		{ID: "t2", DB: "x", SQL: "SELECT 2", Split: sqlgym.SplitTrain},
		{ID: "n1", DB: "x", SQL: "SELECT 2"}, // no split
	}
	shared := dataset.SharedGolds(tasks)
	if len(shared) != 1 || shared[0].DB != "x" || strings.Join(shared[0].Holdout, ",") != "h1" || strings.Join(shared[0].Train, ",") != "t1" {
		t.Fatalf("shared golds %+v, want one: h1 with t1 on x", shared)
	}
	w := dataset.SharedGoldWarning(shared)
	if !strings.Contains(w, "1 held-out tasks") || !strings.Contains(w, "h1") || !strings.Contains(w, "t1") {
		t.Fatalf("warning %q lacks the count or the example ids", w)
	}
	if dataset.SharedGoldWarning(dataset.SharedGolds(tasks[2:])) != "" {
		t.Fatal("a warning for a file whose splits share no gold")
	}
}
