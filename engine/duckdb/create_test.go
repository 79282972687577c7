package duckdb

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	duck "github.com/duckdb/duckdb-go/v2"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/engine/enginetest"
)

func TestCreateManySingleRowInserts(t *testing.T) {
	stmts := []string{"CREATE TABLE t (id INTEGER PRIMARY KEY, name VARCHAR, v DOUBLE PRECISION)"}
	for i := range 3000 {
		stmts = append(stmts, fmt.Sprintf("INSERT INTO t (id, name, v) VALUES (%d, 'n''%d;', %d.5);", i, i, i))
	}
	path := filepath.Join(t.TempDir(), "many.duckdb")
	start := time.Now()
	if err := Create(context.Background(), path, stmts); err != nil {
		t.Fatal(err)
	}
	t.Logf("create with %d statements: %s", len(stmts), time.Since(start))
	ents, _ := os.ReadDir(filepath.Dir(path))
	if len(ents) != 1 {
		t.Errorf("Create left %d files, want the database alone", len(ents))
	}
	eng, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	res := query(t, eng, "SELECT count(*), sum(id), max(name), min(v) FROM t")
	enginetest.ExpectRows(t, res, res.Columns, [][]sqlgym.Value{{sqlgym.Int(3000), sqlgym.Int(4498500), sqlgym.Text("n'9;"), sqlgym.Float(0.5)}})
}

func TestCreateRefusesExistingFile(t *testing.T) {
	path := newDB(t, []string{"CREATE TABLE t (a INTEGER)"})
	before, _ := os.ReadFile(path)
	if err := Create(context.Background(), path, []string{"CREATE TABLE u (a INTEGER)"}); err == nil {
		t.Fatal("Create overwrote an existing database")
	}
	after, _ := os.ReadFile(path)
	if string(before) != string(after) {
		t.Fatal("Create changed an existing database")
	}
}

func TestCreateFailureLeavesNothing(t *testing.T) {
	path := filepath.Join(t.TempDir(), "bad.duckdb")
	err := Create(context.Background(), path, []string{"CREATE TABLE t (a INTEGER)", "INSERT INTO t VALUES (1)", "INSERT INTO nope VALUES (2)"})
	if err == nil || !strings.Contains(err.Error(), "statement 3") {
		t.Fatalf("want an error naming statement 3, got %v", err)
	}
	if ents, _ := os.ReadDir(filepath.Dir(path)); len(ents) != 0 {
		t.Fatalf("a failed Create left files behind: %v", ents)
	}
}

// Merging unifies the VALUES rows' types; statements that only work one by
// one must still load.
func TestCreateFallsBackWhenMergedInsertFails(t *testing.T) {
	path := newDB(t, []string{
		"CREATE TABLE t (s VARCHAR)",
		"INSERT INTO t VALUES ('abc')",
		"INSERT INTO t VALUES (1)",
	})
	eng, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	res := query(t, eng, "SELECT s FROM t ORDER BY s")
	enginetest.ExpectRows(t, res, []string{"s"}, [][]sqlgym.Value{{sqlgym.Text("1")}, {sqlgym.Text("abc")}})
}

func TestMergeInserts(t *testing.T) {
	stmts := []string{
		"CREATE TABLE t (a INTEGER, b VARCHAR)",
		"INSERT INTO t (a, b) VALUES (1, 'x;y')",
		"insert  into t (a, b)\nvalues (2, 'it''s'), (3, NULL);",
		"INSERT INTO t (a, b) VALUES (4, 'a -- b')", // a "--" anywhere: left alone
		"INSERT INTO t (a, b) VALUES (5, 'e')",
		"INSERT INTO t VALUES (6, 'f')", // other column list: new batch
		"INSERT INTO t VALUES (7, 'g') RETURNING a",
		"INSERT INTO t SELECT 8, 'h'",
		"INSERT INTO t VALUES (9, 'i'); DELETE FROM t",
	}
	got := mergeInserts(stmts)
	want := []batch{
		{sql: stmts[0], first: 0, last: 0},
		{sql: "INSERT INTO t (a, b) VALUES (1, 'x;y'), (2, 'it''s'), (3, NULL)", first: 1, last: 2},
		{sql: stmts[3], first: 3, last: 3},
		{sql: "INSERT INTO t (a, b) VALUES (5, 'e')", first: 4, last: 4},
		{sql: "INSERT INTO t VALUES (6, 'f')", first: 5, last: 5},
		{sql: stmts[6], first: 6, last: 6},
		{sql: stmts[7], first: 7, last: 7},
		{sql: stmts[8], first: 8, last: 8},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d batches, want %d: %+v", len(got), len(want), got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("batch %d = %+v, want %+v", i, got[i], want[i])
		}
	}
}

// The settings alone, without the engine's statement-type gate, refuse
// writes, file access, extensions and setting changes: the gate is a
// second layer, not the only one.
func TestSettingsAloneRefuse(t *testing.T) {
	path := newDB(t, enginetest.Fixture())
	dir := t.TempDir()
	e := &Engine{path: path, opts: Options{}.withDefaults()}
	c, err := duck.NewConnector(path+"?"+e.sandboxSettings().Encode(), nil)
	if err != nil {
		t.Fatal(err)
	}
	db := sql.OpenDB(c)
	defer db.Close()
	for _, q := range lockSQL {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	for _, q := range []string{
		"INSERT INTO people (id, name) VALUES (99, 'x')",
		"CREATE TABLE evil (a INTEGER)",
		"DROP TABLE people",
		"COPY people TO '" + dir + "/x.csv'",
		"SELECT * FROM read_text('/etc/passwd')",
		"ATTACH '" + dir + "/x.duckdb'",
		"INSTALL httpfs",
		"LOAD httpfs",
		"SET enable_external_access = true",
		"SET lock_configuration = false",
		"RESET memory_limit",
		"PRAGMA threads = 8",
	} {
		if _, err := db.Exec(q); err == nil {
			t.Errorf("the settings alone allowed: %s", q)
		} else if kind := classify(err); kind.(*sqlgym.ExecError).Kind != sqlgym.ErrKindForbidden {
			t.Errorf("%s: refused as %v, want forbidden", q, kind)
		}
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("files appeared: %v", ents)
	}
}
