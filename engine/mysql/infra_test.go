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

// TestInfraNeverTheModels checks that what other sessions do to a
// statement is an *sqlgym.InfraError, never an ExecError or a timeout: a
// metadata lock held by an administrator, and a statement killed from
// outside.
func TestInfraNeverTheModels(t *testing.T) {
	readerDSN, name := testenv.MySQLReader(t, enginetest.Fixture())
	eng, err := Open(context.Background(), readerDSN, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	admin, err := sql.Open("mysql", testenv.MySQLWithDB(t, testenv.MySQL(t), name))
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	ctx := context.Background()

	t.Run("metadata_lock", func(t *testing.T) {
		conn, err := admin.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		if _, err := conn.ExecContext(ctx, "LOCK TABLES people WRITE"); err != nil {
			t.Fatal(err)
		}
		defer conn.ExecContext(ctx, "UNLOCK TABLES")
		// Failed by the server's lock wait (error 1205) rather than
		// stopped by its own 2 s limit (ErrTimeout): the statement did not
		// spend its time waiting, whatever the machine's load.
		_, err = eng.Query(ctx, "SELECT count(*) FROM people", enginetest.WallClock(2*time.Second))
		var me *mysql.MySQLError
		if !sqlgym.IsInfra(err) || !errors.As(err, &me) || me.Number != 1205 {
			t.Fatalf("statement behind another session's lock: want an InfraError of the lock wait (1205), got %v", err)
		}
	})

	t.Run("killed_from_outside", func(t *testing.T) {
		cfg, _ := mysql.ParseDSN(readerDSN)
		go func() {
			// Kill the reader's statement once it shows in the process list.
			for i := 0; i < 100; i++ {
				time.Sleep(20 * time.Millisecond)
				var id int64
				if admin.QueryRowContext(ctx, `SELECT ID FROM information_schema.PROCESSLIST WHERE USER = ? AND INFO LIKE '%nums a, nums b%' AND COMMAND = 'Query'`, cfg.User).Scan(&id) == nil {
					admin.ExecContext(ctx, "KILL QUERY ?", id)
					return
				}
			}
		}()
		_, err := eng.Query(ctx, "SELECT count(*) FROM nums a, nums b, nums c", enginetest.WallClock(10*time.Second))
		var ee *sqlgym.ExecError
		if !sqlgym.IsInfra(err) || errors.As(err, &ee) || errors.Is(err, sqlgym.ErrTimeout) {
			t.Fatalf("statement killed by another session: want InfraError, got %v", err)
		}
	})
	res, err := eng.Query(ctx, "SELECT 1 AS x", sqlgym.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	enginetest.ExpectRows(t, res, []string{"x"}, [][]sqlgym.Value{{sqlgym.Int(1)}})
}
