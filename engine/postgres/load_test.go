package postgres

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/engine/enginetest"
	"github.com/sqlgym/sqlgym/internal/testenv"
)

// TestLoadReplaceAndDigest checks Load's refusal to overwrite, its
// --replace path (which keeps the reader able to read), its all-or-nothing
// transaction, and that Digest notices a change of rows or of sequences.
func TestLoadReplaceAndDigest(t *testing.T) {
	s := newSandbox(t, []string{
		`CREATE TABLE t (a INTEGER PRIMARY KEY, b VARCHAR(10))`,
		`INSERT INTO t VALUES (1, 'one'), (2, 'two')`,
	})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	eng := s.open(t, Options{})
	count := func() int64 {
		t.Helper()
		res, err := eng.Query(ctx, `SELECT count(*) FROM t`, sqlgym.Limits{})
		if err != nil {
			t.Fatalf("reader query: %v", err)
		}
		return res.Rows[0][0].Int
	}
	if n := count(); n != 2 {
		t.Fatalf("count = %d, want 2", n)
	}
	d1 := s.digest(t)

	next := []string{`CREATE TABLE t (a INTEGER PRIMARY KEY, b VARCHAR(10))`, `INSERT INTO t VALUES (1, 'one'), (2, 'two'), (3, 'three')`}
	var ue *sqlgym.UserError
	if err := Load(ctx, s.admin, s.schema, false, next); !errors.As(err, &ue) || !strings.Contains(ue.Hint, "--replace") {
		t.Fatalf("load over a full schema: want a UserError hinting --replace, got %v", err)
	}
	if d := s.digest(t); d != d1 {
		t.Errorf("refused load changed the schema")
	}

	// A failing statement rolls the whole load back, drop included.
	bad := append(append([]string(nil), next...), `INSERT INTO t VALUES (1, 'duplicate')`)
	if err := Load(ctx, s.admin, s.schema, true, bad); err == nil || !strings.Contains(err.Error(), "statement 3") {
		t.Fatalf("load with a failing statement: want an error naming statement 3, got %v", err)
	}
	if d := s.digest(t); d != d1 {
		t.Errorf("failed load changed the schema")
	}

	if err := Load(ctx, s.admin, s.schema, true, next); err != nil {
		t.Fatalf("load with replace: %v", err)
	}
	if n := count(); n != 3 {
		t.Errorf("after replace the reader counts %d rows, want 3", n)
	}
	d2 := s.digest(t)
	if d2 == d1 {
		t.Errorf("digest did not change with the rows")
	}
	testenv.PostgresExec(t, s.admin, "UPDATE "+pgx.Identifier{s.schema, "t"}.Sanitize()+" SET b = 'uno' WHERE a = 1")
	if d := s.digest(t); d == d2 {
		t.Errorf("digest did not notice an updated value")
	}
	testenv.PostgresExec(t, s.admin, "CREATE SEQUENCE "+pgx.Identifier{s.schema, "sq"}.Sanitize())
	d3 := s.digest(t)
	adminInt(t, s.admin, "SELECT nextval($1::regclass)", s.schema+".sq")
	if d := s.digest(t); d == d3 {
		t.Errorf("digest did not notice a sequence advancing")
	}
	if err := Load(ctx, s.admin, "", false, next); !errors.As(err, &ue) {
		t.Errorf("load without a schema: want a UserError, got %v", err)
	}
}

// TestLoadFixtureMatchesSuite loads the shared fixture and checks a few of
// its values from the reader's side, independently of the suite.
func TestLoadFixtureMatchesSuite(t *testing.T) {
	s := newSandbox(t, enginetest.Fixture())
	eng := s.open(t, Options{})
	res, err := eng.Query(context.Background(), `SELECT count(*), sum(x) FROM nums`, sqlgym.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	var sum float64
	for n := 1; n <= enginetest.NumsRows; n++ {
		sum += float64(n) / 4
	}
	enginetest.ExpectRows(t, res, []string{"count", "sum"}, [][]sqlgym.Value{{sqlgym.Int(enginetest.NumsRows), sqlgym.Float(sum)}})
}
