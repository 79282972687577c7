package testenv

import (
	"context"
	"database/sql"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
)

// MySQL returns the go-sql-driver DSN of the test MySQL or MariaDB server
// from SQLGYM_TEST_MYSQL (say root@unix(/run/mysqld/mysqld.sock)/), an
// administrator's, after checking that it answers. When it is unset or
// unreachable the test is skipped, or fails when SQLGYM_REQUIRE_MYSQL=1.
func MySQL(t testing.TB) string {
	t.Helper()
	dsn := os.Getenv("SQLGYM_TEST_MYSQL")
	if dsn == "" {
		missing(t, "SQLGYM_REQUIRE_MYSQL",
			"MySQL tests skipped: set SQLGYM_TEST_MYSQL='root@unix(/run/mysqld/mysqld.sock)/' (a go-sql-driver DSN of an administrator)")
		return ""
	}
	db, err := sql.Open("mysql", dsn)
	if err == nil {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		err = db.PingContext(ctx)
		cancel()
		db.Close()
	}
	if err != nil {
		missing(t, "SQLGYM_REQUIRE_MYSQL", "MySQL at SQLGYM_TEST_MYSQL does not answer: "+err.Error())
		return ""
	}
	return dsn
}

// MySQLReader gives a test its own database on the test server, filled by
// running stmts as the administrator (in UTC), and an account that may
// only SELECT from it, as sqlgym requires of the account model SQL runs
// as. It returns the reader's DSN and the database's name; both are
// dropped when the test ends. It skips like MySQL.
func MySQLReader(t testing.TB, stmts []string) (readerDSN, dbName string) {
	t.Helper()
	admin := MySQL(t)
	dbName, user := UniqueName("sqlgym_t"), UniqueName("sqlgym_r")
	const pass = "sqlgym-test-reader"
	t.Cleanup(func() {
		MySQLExec(t, admin, "DROP DATABASE IF EXISTS `"+dbName+"`",
			"DROP USER IF EXISTS '"+user+"'@'localhost'", "DROP USER IF EXISTS '"+user+"'@'%'")
	})
	MySQLExec(t, admin, "CREATE DATABASE `"+dbName+"` CHARACTER SET utf8mb4")
	MySQLExec(t, MySQLWithDB(t, admin, dbName), stmts...)
	for _, host := range []string{"localhost", "%"} {
		MySQLExec(t, admin, "CREATE USER '"+user+"'@'"+host+"' IDENTIFIED BY '"+pass+"'",
			"GRANT SELECT ON `"+dbName+"`.* TO '"+user+"'@'"+host+"'")
	}
	cfg, err := mysql.ParseDSN(admin)
	if err != nil {
		t.Fatalf("SQLGYM_TEST_MYSQL: %v", err)
	}
	cfg.User, cfg.Passwd, cfg.DBName = user, pass, dbName
	return cfg.FormatDSN(), dbName
}

// MySQLWithDB is dsn selecting database db.
func MySQLWithDB(t testing.TB, dsn, db string) string {
	t.Helper()
	cfg, err := mysql.ParseDSN(dsn)
	if err != nil {
		t.Fatalf("mysql DSN %q: %v", dsn, err)
	}
	cfg.DBName = db
	return cfg.FormatDSN()
}

// MySQLExec runs statements on dsn in UTC, one connection, failing the
// test on the first error.
func MySQLExec(t testing.TB, dsn string, stmts ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	db, err := sql.Open("mysql", dsn)
	if err != nil {
		t.Fatalf("mysql: %v", err)
	}
	defer db.Close()
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatalf("mysql connect: %v", err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "SET time_zone = '+00:00'"); err != nil {
		t.Fatalf("mysql: %v", err)
	}
	for _, q := range stmts {
		if _, err := conn.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", shortSQL(q), err)
		}
	}
}

func shortSQL(q string) string {
	if len(q) > 200 {
		return q[:200] + "..."
	}
	return strings.TrimSpace(q)
}

// MySQLURL is the mysql:// URL (the form --db NAME=URL takes) of a
// go-sql-driver DSN such as MySQLReader's: over a Unix socket it is
// mysql://USER:PASS@/DB?socket=PATH.
func MySQLURL(t testing.TB, dsn string) string {
	t.Helper()
	cfg, err := mysql.ParseDSN(dsn)
	if err != nil {
		t.Fatalf("mysql DSN %q: %v", dsn, err)
	}
	u := url.URL{Scheme: "mysql", Path: "/" + cfg.DBName}
	if cfg.Passwd != "" {
		u.User = url.UserPassword(cfg.User, cfg.Passwd)
	} else {
		u.User = url.User(cfg.User)
	}
	if cfg.Net == "unix" {
		u.RawQuery = url.Values{"socket": {cfg.Addr}}.Encode()
	} else {
		u.Host = cfg.Addr
	}
	return u.String()
}
