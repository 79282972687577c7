package failure_test

import (
	"context"
	"testing"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/engine/mysql"
	"github.com/sqlgym/sqlgym/failure"
	"github.com/sqlgym/sqlgym/internal/testenv"
)

func TestEngineErrorsMySQL(t *testing.T) {
	dsn, _ := testenv.MySQLReader(t, fixture)
	eng, err := mysql.Open(context.Background(), dsn, mysql.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	checkErrors(t, eng, sqlgym.DialectMySQL, errorCase{"SELECT substr() FROM a", failure.Syntax},
		errorCase{"SELECT name FROM a WHERE count(*) > 1", failure.TypeError})
}
