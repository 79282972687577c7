package root

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/engine/duckdb"
	"github.com/sqlgym/sqlgym/engine/postgres"
	"github.com/sqlgym/sqlgym/engine/sqlite"
	"github.com/sqlgym/sqlgym/internal/testenv"
	"github.com/sqlgym/sqlgym/shopdb"

	"github.com/sqlgym/sqlgym/internal/cmd/cmdkit"
	datacmd "github.com/sqlgym/sqlgym/internal/cmd/data"
)

func count(t *testing.T, eng sqlgym.Engine, q string) int64 {
	t.Helper()
	rs, err := eng.Query(context.Background(), q, sqlgym.Limits{})
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return rs.Rows[0][0].Int
}

// TestDBCreateShopEveryEngine is the foundation's done-when: the shop
// database created by the command holds 300 orders in 8 tables with
// foreign keys, with equal contents in SQLite, DuckDB and PostgreSQL.
func TestDBCreateShopEveryEngine(t *testing.T) {
	dir := t.TempDir()
	sq := filepath.Join(dir, "s.sqlite")
	code, out, errOut := run(t, "db", "create", "shop", "--engine", "sqlite", "--out", sq, "--json")
	if code != cmdkit.ExitOK {
		t.Fatalf("sqlite: exit %d %s", code, errOut)
	}
	var res datacmd.DBCreateResult
	if err := json.Unmarshal([]byte(out), &res); err != nil || res.Tables != 8 || res.Target != sq {
		t.Fatalf("--json: %v %s", err, out)
	}
	// Refuses to overwrite without --replace; replaces with it.
	code, _, errOut = run(t, "db", "create", "shop", "--engine", "sqlite", "--out", sq)
	if code != cmdkit.ExitError || !strings.Contains(errOut, "already exists") || !strings.Contains(errOut, "--replace") {
		t.Fatalf("overwrite without --replace: exit %d %q", code, errOut)
	}
	if code, _, errOut = run(t, "db", "create", "shop", "--engine", "sqlite", "--out", sq, "--replace"); code != cmdkit.ExitOK {
		t.Fatalf("--replace: exit %d %s", code, errOut)
	}
	eng, err := sqlite.Open(sq, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	if n := count(t, eng, "SELECT count(*) FROM orders"); n != 300 {
		t.Fatalf("orders: %d", n)
	}
	s, err := eng.Describe(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	fks := 0
	for _, tb := range s.Tables {
		fks += len(tb.ForeignKeys)
	}
	if len(s.Tables) != 8 || fks < 7 {
		t.Fatalf("%d tables, %d foreign keys", len(s.Tables), fks)
	}
	want, err := shopdb.EngineChecksums(context.Background(), eng)
	if err != nil {
		t.Fatal(err)
	}

	dk := filepath.Join(dir, "s.duckdb")
	if code, _, errOut := run(t, "db", "create", "shop", "--engine", "duckdb", "--out", dk); code != cmdkit.ExitOK {
		t.Fatalf("duckdb: exit %d %s", code, errOut)
	}
	de, err := duckdb.Open(dk, duckdb.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer de.Close()
	got, err := shopdb.EngineChecksums(context.Background(), de)
	if err != nil {
		t.Fatal(err)
	}
	if !equalChecksums(got, want) {
		t.Fatalf("duckdb holds other data:\n%v\n%v", got, want)
	}

	dsn := testenv.Postgres(t)
	schemaName := testenv.UniqueName("shop")
	if code, _, errOut := run(t, "db", "create", "shop", "--engine", "postgres", "--dsn", dsn, "--schema", schemaName); code != cmdkit.ExitOK {
		t.Fatalf("postgres: exit %d %s", code, errOut)
	}
	t.Cleanup(func() { dropSchema(t, dsn, schemaName) })
	code, _, errOut = run(t, "db", "create", "shop", "--engine", "postgres", "--dsn", dsn, "--schema", schemaName)
	if code == cmdkit.ExitOK || !strings.Contains(errOut, "--replace") {
		t.Fatalf("postgres overwrite without --replace: exit %d %q", code, errOut)
	}
	if code, _, errOut := run(t, "db", "create", "shop", "--engine", "postgres", "--dsn", dsn, "--schema", schemaName, "--replace"); code != cmdkit.ExitOK {
		t.Fatalf("postgres --replace: exit %d %s", code, errOut)
	}
	pe, err := postgres.Open(context.Background(), dsn, postgres.Options{Schema: schemaName, AllowPrivileged: true})
	if err != nil {
		t.Fatal(err)
	}
	defer pe.Close()
	got, err = shopdb.EngineChecksums(context.Background(), pe)
	if err != nil {
		t.Fatal(err)
	}
	if !equalChecksums(got, want) {
		t.Fatalf("postgres holds other data:\n%v\n%v", got, want)
	}
}

func equalChecksums(a, b []shopdb.TableChecksum) bool {
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

func TestDBSchemaShop(t *testing.T) {
	code, out, _ := run(t, "db", "schema", "shop")
	if code != cmdkit.ExitOK || strings.Count(out, "CREATE TABLE") != 8 || !strings.Contains(out, "REFERENCES") {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	if code, _, errOut := run(t, "db", "schema", "nope"); code != cmdkit.ExitError || !strings.Contains(errOut, "hint:") {
		t.Fatalf("unknown database: exit %d %q", code, errOut)
	}
	data := testenv.SharedData(t)
	src := testenv.CopyFile(t, filepath.Join(data, "spider_dev", "database", "concert_singer", "concert_singer.sqlite"))
	code, out, errOut := run(t, "db", "schema", "concert_singer", "--db", "concert_singer=sqlite:"+src, "--samples", "2")
	if code != cmdkit.ExitOK || !strings.Contains(out, "CREATE TABLE singer (") || !strings.Contains(out, "-- e.g. ") {
		t.Fatalf("spider schema: exit %d %s\n%s", code, errOut, out)
	}
	t.Setenv("SQLGYM_CACHE", t.TempDir())
	code, out, _ = run(t, "db", "schema", "shop", "--json")
	if code != cmdkit.ExitOK || !strings.Contains(out, `"name": "orders"`) || !strings.Contains(out, `"rows": 300`) {
		t.Fatalf("shop --json: exit %d\n%s", code, out)
	}
}

func dropSchema(t *testing.T, dsn, name string) {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Logf("drop schema %s: %v", name, err)
		return
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "DROP SCHEMA IF EXISTS "+name+" CASCADE"); err != nil {
		t.Logf("drop schema %s: %v", name, err)
	}
}
