package mysql

import (
	"context"
	"database/sql"
	"errors"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/engine/enginetest"
	"github.com/sqlgym/sqlgym/internal/testenv"
)

// TestCancelKillsStatement ends the caller's context under a runaway and
// checks on the server, as the administrator, that no statement of the
// reader's is still running: the driver alone would only drop the
// connection and leave the statement running to its time limit.
func TestCancelKillsStatement(t *testing.T) {
	readerDSN, _ := testenv.MySQLReader(t, enginetest.Fixture())
	eng, err := Open(context.Background(), readerDSN, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	cfg, _ := mysql.ParseDSN(readerDSN)
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	_, err = eng.Query(ctx, `SELECT count(*) FROM nums a, nums b, nums c`, enginetest.WallClock(time.Minute))
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("want the caller's deadline, got %v", err)
	}
	var ee *sqlgym.ExecError
	if errors.As(err, &ee) || errors.Is(err, sqlgym.ErrTimeout) || sqlgym.IsInfra(err) {
		t.Fatalf("a caller's deadline reported as the statement's: %v", err)
	}
	// Returning soon is the driver's; the contract is the server's side:
	// nothing of the reader's still runs.
	admin, err := sql.Open("mysql", testenv.MySQL(t))
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	var running int
	err = admin.QueryRow(`SELECT count(*) FROM information_schema.PROCESSLIST WHERE USER = ? AND COMMAND = 'Query' AND INFO LIKE '%nums a, nums b%'`, cfg.User).Scan(&running)
	if err != nil {
		t.Fatal(err)
	}
	if running != 0 {
		t.Errorf("%d statements still running on the server after the caller's deadline", running)
	}
	// The engine is usable again.
	res, err := eng.Query(context.Background(), `SELECT 1 AS x`, sqlgym.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	enginetest.ExpectRows(t, res, []string{"x"}, [][]sqlgym.Value{{sqlgym.Int(1)}})
}
