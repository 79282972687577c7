package mysql

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"fmt"
	"testing"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/engine/enginetest"
	"github.com/sqlgym/sqlgym/internal/testenv"
)

// harness builds each suite database as its own database on the test
// server, read by its own SELECT-only account.
func harness(extra []string) enginetest.Harness {
	return enginetest.Harness{
		Dialect: sqlgym.DialectMySQL,
		Open: func(t *testing.T, stmts []string) (sqlgym.Engine, func() string) {
			dsn, name := testenv.MySQLReader(t, append(append([]string(nil), stmts...), extra...))
			eng, err := Open(context.Background(), dsn, Options{})
			if err != nil {
				t.Fatalf("open reader: %v", err)
			}
			t.Cleanup(func() { eng.Close() })
			admin := testenv.MySQLWithDB(t, testenv.MySQL(t), name)
			return eng, func() string { return digest(t, admin, name) }
		},
	}
}

// digest is a hash of every table's rows (CHECKSUM TABLE) and of the
// list of tables, views and routines, read as the administrator.
func digest(t *testing.T, admin, name string) string {
	t.Helper()
	db, err := sql.Open("mysql", admin)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	h := sha256.New()
	rows, err := db.QueryContext(ctx, `SELECT table_name, table_type FROM information_schema.tables WHERE table_schema = ? ORDER BY table_name`, name)
	if err != nil {
		t.Fatalf("digest: %v", err)
	}
	var tables []string
	for rows.Next() {
		var n, kind string
		if err := rows.Scan(&n, &kind); err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(h, "%s %s\n", n, kind)
		if kind == "BASE TABLE" {
			tables = append(tables, n)
		}
	}
	rows.Close()
	for _, tb := range tables {
		var n string
		var sum sql.NullInt64
		if err := db.QueryRowContext(ctx, "CHECKSUM TABLE `"+tb+"` EXTENDED").Scan(&n, &sum); err != nil {
			t.Fatalf("digest %s: %v", tb, err)
		}
		fmt.Fprintf(h, "%s %d\n", tb, sum.Int64)
	}
	var routines int
	if err := db.QueryRowContext(ctx, `SELECT count(*) FROM information_schema.routines WHERE routine_schema = ?`, name).Scan(&routines); err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(h, "routines %d\n", routines)
	return hex.EncodeToString(h.Sum(nil))[:16]
}

func TestConformance(t *testing.T) {
	enginetest.Run(t, harness(nil))
}

func TestRobustness(t *testing.T) {
	enginetest.RunRobustness(t, harness(nil))
}
