package duckdb

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/engine/enginetest"
)

// Nothing a statement does is written to disk (issue 18.7): a sort far past
// memory_limit fails as out of memory instead of spilling into <db>.tmp/,
// and no file appears beside the database, in the worker's working
// directory or in its TMPDIR.
func TestBigSortDoesNotSpill(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	cwd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	cwdBefore := listDir(t, cwd)
	for _, mode := range []struct {
		name string
		opts Options
	}{{"worker", Options{PoolSize: 1, MemoryLimit: "64MB"}}, {"in-process", Options{PoolSize: 1, MemoryLimit: "64MB", InProcess: true}}} {
		t.Run(mode.name, func(t *testing.T) {
			eng, path := openDB(t, []string{"CREATE TABLE t (a INTEGER)"}, mode.opts)
			query(t, eng, "SELECT 1")
			dir := filepath.Dir(path)
			before := listDir(t, dir)
			if got := query(t, eng, "SELECT current_setting('temp_directory') AS d").Rows[0][0].Str; got != "" {
				t.Errorf("temp_directory is %q, want empty", got)
			}
			for _, sql := range []string{
				`SELECT count(*) FROM (SELECT * FROM range(40000000) t(x) ORDER BY x DESC)`,
				`SELECT count(*) FROM (SELECT x, count(*) FROM range(40000000) t(x) GROUP BY x)`,
				`SELECT count(*) FROM range(4000000) a JOIN range(4000000) b ON a.range = b.range`,
			} {
				start := time.Now()
				_, err := eng.Query(context.Background(), sql, sqlgym.Limits{Timeout: 20 * time.Second})
				took := time.Since(start)
				var ee *sqlgym.ExecError
				if !errors.As(err, &ee) || !strings.Contains(strings.ToLower(ee.Msg), "out of memory") {
					t.Errorf("%s: want an out-of-memory ExecError, got %v", sql, err)
				}
				// Spilling instead would succeed or run into the 20 s
				// limit: the out-of-memory error is the refusal itself,
				// and the time only a figure.
				t.Logf("%s: out of memory after %v", sql, took.Round(time.Millisecond))
				if got := listDir(t, dir); len(got) != len(before) {
					t.Errorf("%s: files appeared beside the database: %q", sql, got)
				}
				if got := strangers(listDir(t, tmp)); len(got) != 0 {
					t.Errorf("%s: files appeared in TMPDIR: %q", sql, got)
				}
				if _, err := os.Stat(path + ".tmp"); !errors.Is(err, os.ErrNotExist) {
					t.Errorf("%s: %s.tmp exists", sql, path)
				}
			}
			query(t, eng, "SELECT 1")
		})
	}
	if got := listDir(t, cwd); len(got) != len(cwdBefore) {
		t.Errorf("files appeared in the working directory: %q", got)
	}
}

// Whatever is on disk stays out of reach: the file functions fail
// (enable_external_access, and the gate refuses the table functions), so
// an answer cannot read what another left behind.
func TestFilesOutOfReach(t *testing.T) {
	eng, path := openDB(t, enginetest.Fixture(), Options{})
	dir := filepath.Dir(path)
	if err := os.WriteFile(filepath.Join(dir, "left.csv"), []byte("a\n1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, sql := range []string{
		`SELECT * FROM glob('` + dir + `/*')`,
		`SELECT * FROM read_blob('` + dir + `/left.csv')`,
		`SELECT * FROM read_text('` + dir + `/left.csv')`,
		`SELECT * FROM read_csv('` + dir + `/left.csv')`,
		`SELECT * FROM '` + dir + `/left.csv'`,
		`SELECT * FROM read_blob('` + path + `.tmp/*')`,
		`SELECT * FROM glob('` + path + `.tmp/*')`,
	} {
		_, err := eng.Query(context.Background(), sql, sqlgym.Limits{})
		enginetest.ExpectExecError(t, err, sqlgym.ErrKindForbidden)
	}
}

// strangers drops the test's own temporary directories (t.TempDir lives in
// TMPDIR too).
func strangers(names []string) []string {
	var out []string
	for _, n := range names {
		if !strings.HasPrefix(n, "TestBigSortDoesNotSpill") {
			out = append(out, n)
		}
	}
	return out
}
