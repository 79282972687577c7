package mysql

import (
	"context"
	"database/sql"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/internal/testenv"
)

// candidateStmts: a table with an AUTO_INCREMENT key, a child with a
// foreign key to it, and a table without a primary key.
var candidateStmts = []string{
	"CREATE TABLE parent (id INT NOT NULL AUTO_INCREMENT PRIMARY KEY, name VARCHAR(20) NOT NULL DEFAULT 'x AUTO_INCREMENT y')",
	"CREATE TABLE child (child_id INT NOT NULL PRIMARY KEY, parent_id INT NOT NULL, amount DECIMAL(6,2), doubled DECIMAL(8,2) AS (amount * 2) VIRTUAL, FOREIGN KEY (parent_id) REFERENCES parent (id))",
	"CREATE TABLE notes (body VARCHAR(20))",
	"INSERT INTO parent (name) VALUES ('a'), ('b'), ('c')",
	"INSERT INTO child (child_id, parent_id, amount) VALUES (10, 1, 1.50), (11, 2, 2.50), (12, 2, NULL)",
	"INSERT INTO notes VALUES ('n3'), ('n1'), ('n2')",
}

// TestCandidates builds a candidate twice and keeps it: the edits name
// rows by RowID (also in the table with its own AUTO_INCREMENT column), a
// group breaking the foreign key is rolled back whole, the second build
// starts again from the original's rows without recreating a table, and
// the kept database has the original's columns and the edited rows.
func TestCandidates(t *testing.T) {
	admin := testenv.MySQL(t)
	reader, db := testenv.MySQLReader(t, candidateStmts)
	ctx := context.Background()
	cand, kept := db+"_c1", db+"_v1"
	t.Cleanup(func() {
		testenv.MySQLExec(t, admin, "DROP DATABASE IF EXISTS `"+cand+"`", "DROP DATABASE IF EXISTS `"+kept+"`")
	})
	before, err := Digest(ctx, admin, db)
	if err != nil {
		t.Fatal(err)
	}
	c, err := NewCandidates(ctx, admin, db, reader)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()

	groups := [][]string{
		// The second row of parent in key order, by RowID.
		{`UPDATE "parent" SET "name" = 'B' || '!' WHERE ` + RowID + ` = (SELECT ` + RowID + ` FROM "parent" ORDER BY "id" LIMIT 1 OFFSET 1)`},
		// The first row of notes as the original holds them (no key).
		{`DELETE FROM "notes" WHERE ` + RowID + ` = (SELECT MIN(` + RowID + `) FROM "notes")`},
		// A child of a parent that does not exist: refused, rolled back.
		{`UPDATE "child" SET "amount" = 99 WHERE "child_id" = 10`, `INSERT INTO "child" ("child_id", "parent_id") VALUES (13, 42)`},
		// A new parent row (its id named, as the planner does) is the
		// highest RowID.
		{`INSERT INTO "parent" ("id", "name") VALUES (7, 'd')`, `UPDATE "parent" SET "name" = 'D' WHERE ` + RowID + ` = (SELECT MAX(` + RowID + `) FROM "parent")`},
	}
	applied, err := c.Build(ctx, cand, groups)
	if err != nil {
		t.Fatal(err)
	}
	if want := []bool{true, true, false, true}; !equalBools(applied, want) {
		t.Fatalf("applied %v, want %v", applied, want)
	}
	want := "parent: 1 a|2 B!|3 c|7 D; child: 10 1 1.50 3.00|11 2 2.50 5.00|12 2 NULL NULL; notes: n1|n2"
	if got := contents(t, reader, cand); got != want {
		t.Errorf("first build:\n got %s\nwant %s", got, want)
	}
	created := createTimes(t, admin, cand)

	// Rebuilt with other edits: the first build's are gone.
	applied, err = c.Build(ctx, cand, [][]string{{`DELETE FROM "child" WHERE "child_id" = 12`}})
	if err != nil || !applied[0] {
		t.Fatalf("second build: %v %v", applied, err)
	}
	want = "parent: 1 a|2 b|3 c; child: 10 1 1.50 3.00|11 2 2.50 5.00; notes: n3|n1|n2"
	if got := contents(t, reader, cand); got != want {
		t.Errorf("second build:\n got %s\nwant %s", got, want)
	}
	if again := createTimes(t, admin, cand); again != created {
		t.Errorf("the second build recreated tables: %s, then %s", created, again)
	}

	if err := c.Keep(ctx, cand, kept); err != nil {
		t.Fatal(err)
	}
	if got := contents(t, reader, kept); got != want {
		t.Errorf("kept:\n got %s\nwant %s", got, want)
	}
	left, err := DatabasesLike(ctx, admin, "^"+cand+"$")
	if err != nil || len(left) != 0 {
		t.Errorf("candidate left after Keep: %v %v", left, err)
	}
	cols := columns(t, admin, kept)
	if strings.Contains(cols, RowID) {
		t.Errorf("kept database still has %s: %s", RowID, cols)
	}
	if want := "child.child_id child.parent_id child.amount child.doubled notes.body parent.id parent.name"; cols != want {
		t.Errorf("kept columns %q, want %q", cols, want)
	}
	if after, err := Digest(ctx, admin, db); err != nil || after != before {
		t.Errorf("the original changed: %s, then %s (%v)", before, after, err)
	}

	// A build after a Drop creates the database again.
	if err := c.Drop(ctx, kept); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Build(ctx, cand, nil); err != nil {
		t.Fatalf("build after keep: %v", err)
	}
	if got := contents(t, reader, cand); got != "parent: 1 a|2 b|3 c; child: 10 1 1.50 3.00|11 2 2.50 5.00|12 2 NULL NULL; notes: n3|n1|n2" {
		t.Errorf("build after keep: %s", got)
	}
}

func equalBools(a, b []bool) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// contents reads the three tables through the sandbox as the reader.
func contents(t *testing.T, reader, db string) string {
	t.Helper()
	ctx := context.Background()
	e, err := Open(ctx, withDB(t, reader, db), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	var parts []string
	for _, q := range []string{
		"SELECT * FROM parent ORDER BY id",
		"SELECT * FROM child ORDER BY child_id",
		"SELECT * FROM notes",
	} {
		rs, err := e.Query(ctx, q, sqlgym.Limits{})
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		var rows []string
		for _, r := range rs.Rows {
			var vs []string
			for _, v := range r {
				vs = append(vs, v.String())
			}
			rows = append(rows, strings.Join(vs, " "))
		}
		parts = append(parts, strings.Fields(q)[3]+": "+strings.Join(rows, "|"))
	}
	return strings.Join(parts, "; ")
}

func withDB(t *testing.T, dsn, db string) string {
	t.Helper()
	cfg, err := parseDSN(dsn)
	if err != nil {
		t.Fatal(err)
	}
	cfg.DBName = db
	return cfg.FormatDSN()
}

// createTimes lists each table's InnoDB table id, which a table created
// again (or rebuilt by ALTER TABLE) changes.
func createTimes(t *testing.T, admin, db string) string {
	t.Helper()
	return adminColumn(t, admin, "SELECT CONCAT(NAME, ' ', TABLE_ID) FROM information_schema.INNODB_SYS_TABLES WHERE NAME LIKE CONCAT(?, '/%') ORDER BY 1", db)
}

func columns(t *testing.T, admin, db string) string {
	t.Helper()
	return adminColumn(t, admin, "SELECT CONCAT(TABLE_NAME, '.', COLUMN_NAME) FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = ? ORDER BY TABLE_NAME, ORDINAL_POSITION", db)
}

func adminColumn(t *testing.T, admin, q, db string) string {
	t.Helper()
	pool, err := sql.Open("mysql", admin)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	rows, err := pool.Query(q, db)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		out = append(out, s)
	}
	return strings.Join(out, " ")
}
