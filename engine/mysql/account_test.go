package mysql

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/go-sql-driver/mysql"
	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/internal/testenv"
)

// TestAccountRefused opens the engine as accounts that may do more than
// SELECT: each is refused on connect with the recipe of a reader account.
func TestAccountRefused(t *testing.T) {
	readerDSN, name := testenv.MySQLReader(t, []string{"CREATE TABLE t (a INT)"})
	admin := testenv.MySQL(t)
	cfg, err := mysql.ParseDSN(readerDSN)
	if err != nil {
		t.Fatal(err)
	}
	user := cfg.User
	cases := []struct{ grant, want string }{
		{"GRANT INSERT ON `" + name + "`.* TO '" + user + "'@'%'", "INSERT"},
		{"GRANT FILE ON *.* TO '" + user + "'@'%'", "FILE"},
		{"GRANT PROCESS ON *.* TO '" + user + "'@'%'", "PROCESS"},
		{"GRANT SELECT ON `" + name + "`.* TO '" + user + "'@'%' WITH GRANT OPTION", "GRANT OPTION"},
	}
	for _, c := range cases {
		t.Run(c.want, func(t *testing.T) {
			for _, host := range []string{"localhost", "%"} {
				testenv.MySQLExec(t, admin, strings.Replace(c.grant, "'%'", "'"+host+"'", 1))
			}
			_, err := Open(context.Background(), readerDSN, Options{})
			var ue *sqlgym.UserError
			if !errors.As(err, &ue) || !strings.Contains(err.Error(), c.want) || !strings.Contains(ue.Hint, "GRANT SELECT ON") {
				t.Fatalf("want a refusal naming %s with the reader recipe, got %v", c.want, err)
			}
			for _, host := range []string{"localhost", "%"} {
				testenv.MySQLExec(t, admin, "REVOKE ALL PRIVILEGES, GRANT OPTION FROM '"+user+"'@'"+host+"'",
					"GRANT SELECT ON `"+name+"`.* TO '"+user+"'@'"+host+"'")
			}
			eng, err := Open(context.Background(), readerDSN, Options{})
			if err != nil {
				t.Fatalf("SELECT-only account refused after the revoke: %v", err)
			}
			eng.Close()
		})
	}
	t.Run("administrator", func(t *testing.T) {
		_, err := Open(context.Background(), testenv.MySQLWithDB(t, admin, name), Options{})
		if !strings.Contains(fmtErr(err), "SUPER") && !strings.Contains(fmtErr(err), "ALL PRIVILEGES") {
			t.Fatalf("the administrator was not refused for its privileges: %v", err)
		}
	})
}

func fmtErr(err error) string {
	if err == nil {
		return "<nil>"
	}
	return err.Error()
}

func TestExcess(t *testing.T) {
	for line, want := range map[string]string{
		"GRANT USAGE ON *.* TO `r`@`%` IDENTIFIED BY PASSWORD '*AB'":    "",
		"GRANT SELECT ON `db`.* TO `r`@`%`":                             "",
		"GRANT SELECT (a, b), SHOW VIEW ON `db`.`t` TO `r`@`%`":         "",
		"GRANT SELECT, INSERT ON `db`.* TO `r`@`%`":                     "INSERT",
		"GRANT ALL PRIVILEGES ON *.* TO `root`@`localhost`":             "ALL PRIVILEGES",
		"GRANT PROXY ON ''@'%' TO 'root'@'localhost' WITH GRANT OPTION": "PROXY",
		"GRANT `admin_role` TO `r`@`%`":                                 "admin_role",
	} {
		got := strings.Join(excess(line), ", ")
		if (want == "") != (got == "") || !strings.Contains(got, want) {
			t.Errorf("excess(%q) = %q, want %q", line, got, want)
		}
	}
}
