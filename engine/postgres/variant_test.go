package postgres

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/internal/testenv"
)

// TestCopyAndEditSchema checks the copy a variant starts from: the same
// rows (equal digests), the constraints of the original on the copy's own
// tables (a foreign key pointing at the copy, not at the original), views
// over the copy, readable by the original's reader; and EditSchema's
// groups: all or nothing, the others kept.
func TestCopyAndEditSchema(t *testing.T) {
	s := newSandbox(t, []string{
		`CREATE TABLE parent (id INTEGER PRIMARY KEY, name VARCHAR(10) NOT NULL UNIQUE)`,
		`CREATE TABLE child (id INTEGER PRIMARY KEY, parent_id INTEGER NOT NULL REFERENCES parent (id),
			n INTEGER CHECK (n > 0), at TIMESTAMP)`,
		`CREATE TABLE loose (x INTEGER, y TEXT, twice INTEGER GENERATED ALWAYS AS (x * 2) STORED)`,
		`CREATE TABLE ids (id INTEGER GENERATED ALWAYS AS IDENTITY PRIMARY KEY, v TEXT)`,
		`CREATE VIEW big AS SELECT id, n FROM child WHERE n > 5`,
		`INSERT INTO parent VALUES (1, 'a'), (2, 'b')`,
		`INSERT INTO child VALUES (1, 1, 3, '2024-01-01 10:00'), (2, 2, 7, NULL), (3, 1, 9, NULL)`,
		`INSERT INTO loose (x, y) VALUES (1, 'p'), (1, 'p'), (2, NULL)`,
		`INSERT INTO ids (v) VALUES ('a'), ('b')`,
	})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	to := s.schema + "_c0"
	t.Cleanup(func() { DropSchema(context.Background(), s.admin, to) })
	if err := CopySchema(ctx, s.admin, s.schema, to); err != nil {
		t.Fatal(err)
	}
	// The same rows in every table (Digest would differ: it counts the
	// identity column's sequence, which the copy does not have).
	rows := func(schema string) map[string]string {
		conn, err := pgx.Connect(ctx, s.admin)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close(ctx)
		out := map[string]string{}
		for _, tb := range []string{"parent", "child", "loose", "ids", "big"} {
			var sum string
			q := fmt.Sprintf("SELECT coalesce(md5(string_agg(r::text, '|' ORDER BY r::text)), '') FROM %s.%s AS r",
				pgx.Identifier{schema}.Sanitize(), tb)
			if err := conn.QueryRow(ctx, q).Scan(&sum); err != nil {
				t.Fatalf("%s: %v", q, err)
			}
			out[tb] = sum
		}
		return out
	}
	r0 := rows(s.schema)
	if r1 := rows(to); !maps.Equal(r0, r1) {
		t.Fatalf("the copy's rows %v, the original's %v: want equal", r1, r0)
	}
	d0, err := Digest(ctx, s.admin, s.schema)
	if err != nil {
		t.Fatal(err)
	}
	var ue *sqlgym.UserError
	if err := CopySchema(ctx, s.admin, s.schema, to); !errors.As(err, &ue) {
		t.Fatalf("copying over an existing schema: %v, want a UserError", err)
	}

	groups := [][]string{
		{`INSERT INTO child VALUES (4, 3, 1, NULL)`},                                            // no parent 3
		{`INSERT INTO child VALUES (5, 1, 0, NULL)`},                                            // CHECK
		{`INSERT INTO parent VALUES (3, 'a')`},                                                  // UNIQUE
		{`INSERT INTO child VALUES (6, 1, NULL, NULL)`, `UPDATE child SET id = 1 WHERE id = 6`}, // key, all or nothing
		{`INSERT INTO parent VALUES (3, 'c')`, `INSERT INTO child VALUES (7, 3, 8, (SELECT MAX(at) FROM child) + INTERVAL '1 day')`},
		{`UPDATE loose SET y = NULL WHERE ctid = (SELECT ctid FROM loose ORDER BY ctid LIMIT 1 OFFSET 1)`},
		// A new row with an explicit key where the original's is an
		// identity column; the generated column follows its input.
		{`INSERT INTO ids (id, v) SELECT (SELECT MAX(id) FROM ids) + 1, 'c'`, `UPDATE loose SET x = 5 WHERE x = 2`},
	}
	applied, err := EditSchema(ctx, s.admin, to, groups)
	if err != nil {
		t.Fatal(err)
	}
	want := []bool{false, false, false, false, true, true, true}
	for i := range want {
		if applied[i] != want[i] {
			t.Errorf("group %d (%s): applied %v, want %v", i+1, groups[i][0], applied[i], want[i])
		}
	}
	if d, _ := Digest(ctx, s.admin, s.schema); d != d0 {
		t.Errorf("editing the copy changed the original")
	}

	// The original's reader reads the copy, and its view reads the copy's
	// rows.
	eng, err := Open(ctx, s.reader, Options{Schema: to})
	if err != nil {
		t.Fatalf("open the copy as the original's reader: %v", err)
	}
	defer eng.Close()
	for q, n := range map[string]int64{
		`SELECT count(*) FROM big`:                                 3,
		`SELECT count(*) FROM child WHERE id = 6`:                  0,
		`SELECT count(*) FROM loose WHERE y IS NULL`:               2,
		`SELECT count(*) FROM child WHERE at = '2024-01-02 10:00'`: 1,
		`SELECT count(*) FROM loose WHERE twice = 10`:              1,
		`SELECT max(id) FROM ids`:                                  3,
	} {
		res, err := eng.Query(ctx, q, sqlgym.Limits{})
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		if got := res.Rows[0][0].Int; got != n {
			t.Errorf("%s = %d, want %d", q, got, n)
		}
	}
	// A role with no right on the original (public, say, which every role
	// may use, so that no grant names the reader) reads the copy when
	// named among the readers, and cannot otherwise.
	other := testenv.UniqueName("sqlgym_r")
	testenv.PostgresExec(t, s.admin, "CREATE ROLE "+other+" LOGIN")
	to2 := s.schema + "_c1"
	t.Cleanup(func() {
		DropSchema(context.Background(), s.admin, to2)
		testenv.PostgresExec(t, s.admin, "DROP ROLE IF EXISTS "+other)
	})
	if err := CopySchema(ctx, s.admin, s.schema, to2, other); err != nil {
		t.Fatal(err)
	}
	for schema, ok := range map[string]bool{to2: true, to: false} {
		e, err := Open(ctx, withUser(t, s.admin, other), Options{Schema: schema})
		if ok != (err == nil) {
			t.Errorf("open %s as a role named among the readers %v: %v", schema, ok, err)
		}
		if err == nil {
			if _, err := e.Query(ctx, `SELECT count(*) FROM child`, sqlgym.Limits{}); err != nil {
				t.Errorf("read %s as %s: %v", schema, other, err)
			}
			e.Close()
		}
	}
	if err := DropSchema(ctx, s.admin, to2); err != nil {
		t.Fatal(err)
	}

	if got, err := SchemasLike(ctx, s.admin, "^"+s.schema+"_c[0-9]+$"); err != nil || len(got) != 1 || got[0] != to {
		t.Errorf("SchemasLike = %v, %v; want [%s]", got, err, to)
	}
	if err := RenameSchema(ctx, s.admin, to, s.schema+"_v1"); err != nil {
		t.Fatal(err)
	}
	to = s.schema + "_v1"
	if err := DropSchema(ctx, s.admin, to); err != nil {
		t.Fatal(err)
	}
	if got, _ := SchemasLike(ctx, s.admin, "^"+s.schema+"_"); len(got) != 0 {
		t.Errorf("schemas left: %v", got)
	}
}
