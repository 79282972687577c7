package postgres

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/engine/enginetest"
	"github.com/sqlgym/sqlgym/internal/testenv"
)

// TestSpiderDump loads one of the public Spider databases from its
// PostgreSQL dump (pg_dump text with COPY ... FROM stdin, so psql loads
// it) into a database of its own, then runs the dev golds of that
// database in the sandbox as a reader role.
func TestSpiderDump(t *testing.T) {
	admin := testenv.Postgres(t)
	data := testenv.SharedData(t)
	psql := testenv.Tool(t, "psql") // loads the Spider dumps
	const dbID = "concert_singer"
	dump := filepath.Join(data, "spider_dev", "postgres_dumps", dbID+".sql")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()

	db := testenv.UniqueName("sqlgym_spider")
	role := testenv.UniqueName("sqlgym_r")
	testenv.PostgresExec(t, admin, "CREATE DATABASE "+db)
	t.Cleanup(func() {
		testenv.PostgresExec(t, admin, "DROP DATABASE IF EXISTS "+db+" WITH (FORCE)", "DROP ROLE IF EXISTS "+role)
	})
	dbDSN := withDatabase(t, admin, db)
	start := time.Now()
	out, err := exec.CommandContext(ctx, psql, "-X", "-q", "-v", "ON_ERROR_STOP=1", "-d", dbDSN, "-f", dump).CombinedOutput()
	if err != nil {
		t.Fatalf("psql load of %s: %v\n%s", dump, err, out)
	}
	t.Logf("loaded %s with psql in %v", dbID, time.Since(start))
	testenv.PostgresExec(t, admin, "CREATE ROLE "+role+" LOGIN")
	testenv.PostgresExec(t, dbDSN, "GRANT USAGE ON SCHEMA public TO "+role, "GRANT SELECT ON ALL TABLES IN SCHEMA public TO "+role)

	eng, err := Open(ctx, withUser(t, dbDSN, role), Options{Schema: "public"})
	if err != nil {
		t.Fatalf("open the Spider database as a reader: %v", err)
	}
	defer eng.Close()

	// Answers read off the dump itself.
	res, err := eng.Query(ctx, `SELECT avg(age), min(age), max(age) FROM singer WHERE country = 'France'`, sqlgym.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	enginetest.ExpectRows(t, res, []string{"avg", "min", "max"}, [][]sqlgym.Value{{sqlgym.Decimal("34.5000000000000000"), sqlgym.Int(25), sqlgym.Int(43)}})
	res, err = eng.Query(ctx, `SELECT name, is_male FROM singer ORDER BY age DESC LIMIT 1`, sqlgym.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	enginetest.ExpectRows(t, res, []string{"name", "is_male"}, [][]sqlgym.Value{{sqlgym.Text("Joe Sharp"), sqlgym.Bool(false)}})

	// Every gold of this database either runs or fails as a statement
	// error (SQLite-flavoured golds such as "France" in double quotes are
	// identifiers in PostgreSQL): never an infrastructure error, never a
	// refusal by the sandbox.
	golds := spiderGolds(t, filepath.Join(data, "spider_dev", "dev.jsonl"), dbID)
	if len(golds) < 20 {
		t.Fatalf("only %d golds for %s", len(golds), dbID)
	}
	ran := 0
	kinds := map[sqlgym.ErrorKind]int{}
	for _, g := range golds {
		_, err := eng.Query(ctx, g, sqlgym.Limits{Timeout: 5 * time.Second})
		if err == nil {
			ran++
			continue
		}
		var ee *sqlgym.ExecError
		if !errors.As(err, &ee) {
			t.Errorf("gold %q: %v", g, err)
			continue
		}
		if ee.Kind == sqlgym.ErrKindForbidden || ee.Kind == sqlgym.ErrKindMulti {
			t.Errorf("gold refused by the sandbox: %q: %v", g, err)
		}
		kinds[ee.Kind]++
		t.Logf("gold fails on PostgreSQL (%s): %s", err, g)
	}
	t.Logf("%s: %d of %d dev golds run on PostgreSQL; failures by kind: %v", dbID, ran, len(golds), kinds)
	if ran*2 < len(golds) {
		t.Errorf("only %d of %d golds ran", ran, len(golds))
	}
}

func spiderGolds(t *testing.T, path, dbID string) []string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var golds []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var q struct {
			DBID string `json:"db_id"`
			Gold string `json:"gold_sql"`
		}
		if err := json.Unmarshal(sc.Bytes(), &q); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if q.DBID == dbID {
			golds = append(golds, q.Gold)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return golds
}
