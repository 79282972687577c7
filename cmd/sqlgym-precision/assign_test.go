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
// it empties only, a variant where a join gold repeats a row out of that
// task only, and that --all keeps every variant for every task.
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
	// v2 gives stadium a a second concert in 2014: the join gold repeats
	// a row it never repeats on the original.
	mk("toy_v2.sqlite", `INSERT INTO concert VALUES (4, 1, 2014)`)
	tasks := write(t, dir, "tasks.jsonl", `{"id":"all","db":"toy","sql":"SELECT name FROM stadium WHERE stadium_id NOT IN (SELECT stadium_id FROM concert)"}
{"id":"y2014","db":"toy","sql":"SELECT name FROM stadium WHERE stadium_id NOT IN (SELECT stadium_id FROM concert WHERE year = 2014)"}
{"id":"names","db":"toy","sql":"SELECT s.name FROM stadium AS s JOIN concert AS c ON s.stadium_id = c.stadium_id WHERE c.year = 2014"}
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
		names := func(ts sqlgym.Task) string {
			var out []string
			for _, u := range ts.DBVariants {
				out = append(out, strings.TrimSuffix(filepath.Base(u), ".sqlite"))
			}
			return strings.Join(out, " ")
		}
		want := []string{"toy_v2", "toy_v1 toy_v2", "toy_v1"}
		if all {
			want = []string{"toy_v1 toy_v2", "toy_v1 toy_v2", "toy_v1 toy_v2"}
		}
		for i, w := range want {
			if names(got[i]) != w {
				t.Errorf("--all=%v: %s judged on %q, want %q", all, got[i].ID, names(got[i]), w)
			}
		}
		if !all && (!strings.Contains(se.String(), "all: not judged on toy_v1.sqlite: empties the gold") ||
			!strings.Contains(se.String(), "names: not judged on toy_v2.sqlite: the gold repeats a row there")) {
			t.Errorf("stderr lacks the left-out variant: %q", se.String())
		}
	}
}
