package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/engine/sqlite"
)

// TestAssignLeavesOutTheVariantThatEmptiesAGold builds a variants folder
// by hand (the original and one variant with a NULL stadium_id) and
// checks that assign leaves the variant out of the task whose NOT IN gold
// it empties only, and that --all keeps it for both.
func TestAssignLeavesOutTheVariantThatEmptiesAGold(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	if err := os.MkdirAll(filepath.Join(dir, "toy"), 0o755); err != nil {
		t.Fatal(err)
	}
	mk := func(name string, extra ...string) {
		stmts := []string{
			`CREATE TABLE stadium (stadium_id INTEGER PRIMARY KEY, name TEXT)`,
			`CREATE TABLE concert (concert_id INTEGER PRIMARY KEY, stadium_id INTEGER REFERENCES stadium(stadium_id), year INTEGER)`,
			`INSERT INTO stadium VALUES (1, 'a'), (2, 'b'), (3, 'c')`,
			`INSERT INTO concert VALUES (1, 1, 2014), (2, 2, 2014), (3, 2, 2015)`,
		}
		if err := sqlite.Create(ctx, filepath.Join(dir, "toy", name), append(stmts, extra...)); err != nil {
			t.Fatal(err)
		}
	}
	mk("toy.sqlite")
	mk("toy_v1.sqlite", `INSERT INTO concert VALUES (4, NULL, 2015)`)
	tasks := write(t, dir, "tasks.jsonl", `{"id":"all","db":"toy","sql":"SELECT name FROM stadium WHERE stadium_id NOT IN (SELECT stadium_id FROM concert)"}
{"id":"y2014","db":"toy","sql":"SELECT name FROM stadium WHERE stadium_id NOT IN (SELECT stadium_id FROM concert WHERE year = 2014)"}
`)
	for _, all := range []bool{false, true} {
		out := filepath.Join(dir, "out.jsonl")
		args := []string{"assign", "--tasks", tasks, "--out", out}
		if all {
			args = append(args, "--all")
		}
		var so, se bytes.Buffer
		if err := run(args, &so, &se); err != nil {
			t.Fatalf("assign %v: %v\n%s", args, err, se.String())
		}
		got, err := sqlgym.ReadTasks(out)
		if err != nil {
			t.Fatal(err)
		}
		v1 := func(ts sqlgym.Task) bool {
			return len(ts.DBVariants) == 1 && strings.HasSuffix(ts.DBVariants[0], "toy_v1.sqlite")
		}
		if all != v1(got[0]) || !v1(got[1]) {
			t.Errorf("--all=%v: db_variants %v and %v; want toy_v1 for y2014, and for all only with --all", all, got[0].DBVariants, got[1].DBVariants)
		}
		if !all && !strings.Contains(se.String(), "all: not judged on toy_v1.sqlite: empties the gold") {
			t.Errorf("stderr lacks the left-out variant: %q", se.String())
		}
	}
}
