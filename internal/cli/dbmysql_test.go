package cli

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym/engine/mysql"
	"github.com/sqlgym/sqlgym/engine/sqlite"
	"github.com/sqlgym/sqlgym/internal/testenv"
	"github.com/sqlgym/sqlgym/shopdb"
)

// TestDBCreateShopMySQL creates the shop on the test MySQL server through
// the command and checks it holds the same rows as SQLite's, that a
// second create is refused without --replace, and that --replace works.
func TestDBCreateShopMySQL(t *testing.T) {
	admin := testenv.MySQL(t)
	sock := "/run/mysqld/mysqld.sock"
	if !strings.Contains(admin, "unix("+sock+")") {
		t.Skip("this test reaches the server through " + sock + " as SQLGYM_TEST_MYSQL's account")
	}
	user := strings.SplitN(admin, "@", 2)[0]
	url := "mysql://" + user + "@/?socket=" + sock
	name := testenv.UniqueName("shop")
	t.Cleanup(func() { testenv.MySQLExec(t, admin, "DROP DATABASE IF EXISTS `"+name+"`") })
	code, out, errOut := run(t, "db", "create", "shop", "--engine", "mysql", "--dsn", url, "--schema", name)
	if code != ExitOK || !strings.Contains(out, "--db shop=mysql://") {
		t.Fatalf("mysql: exit %d %s %s", code, out, errOut)
	}
	if code, _, errOut := run(t, "db", "create", "shop", "--engine", "mysql", "--dsn", url, "--schema", name); code == ExitOK || !strings.Contains(errOut, "--replace") {
		t.Fatalf("mysql overwrite without --replace: exit %d %q", code, errOut)
	}
	if code, _, errOut := run(t, "db", "create", "shop", "--engine", "mysql", "--dsn", url, "--schema", name, "--replace"); code != ExitOK {
		t.Fatalf("mysql --replace: exit %d %s", code, errOut)
	}
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "s.sqlite")
	if err := sqlite.Create(ctx, path, shopdb.Statements()); err != nil {
		t.Fatal(err)
	}
	se, err := sqlite.Open(path, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer se.Close()
	want, err := shopdb.EngineChecksums(ctx, se)
	if err != nil {
		t.Fatal(err)
	}
	me, err := mysql.Open(ctx, testenv.MySQLWithDB(t, admin, name), mysql.Options{SkipAccountCheck: true})
	if err != nil {
		t.Fatal(err)
	}
	defer me.Close()
	got, err := shopdb.EngineChecksums(ctx, me)
	if err != nil {
		t.Fatal(err)
	}
	if !equalChecksums(got, want) {
		t.Fatalf("mysql holds other data:\n%v\n%v", got, want)
	}
}
