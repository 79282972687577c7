package eval

import (
	"context"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/catalog"
	"github.com/sqlgym/sqlgym/internal/testenv"
)

// TestDigestMySQL checks the run manifest's digest of a MySQL database:
// read through the reader's sandboxed engine, equal for the same rows
// inserted in another order, and changed by an edited value, a NULL where
// an empty text was, and an added row.
func TestDigestMySQL(t *testing.T) {
	stmts := []string{
		"CREATE TABLE t (id INT PRIMARY KEY, name VARCHAR(20), amount DECIMAL(8,2))",
		"INSERT INTO t VALUES (1, 'a', 1.50), (2, '', 2.00), (3, NULL, NULL)",
	}
	reader, db := testenv.MySQLReader(t, stmts)
	admin := testenv.MySQLWithDB(t, testenv.MySQL(t), db)
	ctx := context.Background()
	tasks := []sqlgym.Task{{ID: "x", DB: "d", SQL: "SELECT 1"}}
	digest := func() string {
		t.Helper()
		cat, err := catalog.New(catalog.Config{Refs: []string{"d=" + testenv.MySQLURL(t, reader)}, CacheDir: t.TempDir()})
		if err != nil {
			t.Fatal(err)
		}
		defer cat.Close()
		got, err := dbDigests(ctx, cat, tasks, "", false)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(got["d"], "mysql:") {
			t.Fatalf("digest %q: want mysql:...", got["d"])
		}
		return got["d"]
	}
	orig := digest()
	testenv.MySQLExec(t, admin, "DELETE FROM t", "INSERT INTO t VALUES (3, NULL, NULL), (2, '', 2.00), (1, 'a', 1.50)")
	if d := digest(); d != orig {
		t.Errorf("the same rows in another order digest as %s, want %s", d, orig)
	}
	seen := map[string]string{orig: "original"}
	for _, edit := range []string{
		"UPDATE t SET amount = 1.51 WHERE id = 1",
		"UPDATE t SET name = NULL WHERE id = 2",
		"INSERT INTO t VALUES (4, 'd', 0)",
	} {
		testenv.MySQLExec(t, admin, edit)
		d := digest()
		if prev, dup := seen[d]; dup {
			t.Errorf("after %q the digest is the one of %s", edit, prev)
		}
		seen[d] = edit
	}
}
