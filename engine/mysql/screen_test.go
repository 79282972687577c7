package mysql

import (
	"testing"

	"github.com/sqlgym/sqlgym"
)

// TestScreen reads statements as the server does: executable comments are
// code, # and "-- " start comments but "--1" is two minus signs, strings
// take backslash escapes, backticks quote names.
func TestScreen(t *testing.T) {
	cases := []struct {
		sql  string
		want verdict
		kind sqlgym.ErrorKind
		sent string
	}{
		{"SELECT 1", verdictRun, "", "SELECT 1"},
		{"SELECT 1; # done", verdictRun, "", "SELECT 1"},
		{"SELECT 1 -- ; DELETE FROM t", verdictRun, "", "SELECT 1 -- ; DELETE FROM t"},
		{"SELECT 1 --1; DELETE FROM t", verdictRefuse, sqlgym.ErrKindMulti, ""},
		{"SELECT 1 # ; DELETE FROM t\n", verdictRun, "", "SELECT 1 # ; DELETE FROM t\n"},
		{"SELECT `a;b` FROM `t``x`", verdictRun, "", "SELECT `a;b` FROM `t``x`"},
		{`SELECT 'it\'s; fine'`, verdictRun, "", `SELECT 'it\'s; fine'`},
		{`SELECT 'a\\'; DELETE FROM t`, verdictRefuse, sqlgym.ErrKindMulti, ""},
		{"SELECT /* sleep(1) */ 1", verdictRun, "", "SELECT /* sleep(1) */ 1"},
		{"SELECT /*! sleep(1) */ 1", verdictRefuse, sqlgym.ErrKindForbidden, ""},
		{"SELECT /*!80000 sleep(1) */ 1", verdictRefuse, sqlgym.ErrKindForbidden, ""},
		{"/*M!100100 DELETE FROM t */", verdictRefuse, sqlgym.ErrKindForbidden, ""},
		{"SELECT `sleep`(1)", verdictRefuse, sqlgym.ErrKindForbidden, ""},
		{"SELECT sleep_time FROM t", verdictRun, "", "SELECT sleep_time FROM t"},
		{"SELECT REPLACE(name, 'a', 'b'), INSERT(name, 1, 1, 'x') FROM t", verdictRun, "", "SELECT REPLACE(name, 'a', 'b'), INSERT(name, 1, 1, 'x') FROM t"},
		{"SELECT * FROM t FOR UPDATE", verdictRefuse, sqlgym.ErrKindForbidden, ""},
		{"SELECT @@version", verdictRefuse, sqlgym.ErrKindForbidden, ""},
		{"SELECT 'unterminated", verdictRefuse, sqlgym.ErrKindSyntax, ""},
		{"SELEC 1", verdictAskOnly, "", "SELEC 1"},
		{"HANDLER t OPEN", verdictRefuse, sqlgym.ErrKindForbidden, ""},
		{"  -- nothing", verdictRefuse, sqlgym.ErrKindSyntax, ""},
	}
	for _, c := range cases {
		v, sent, ee := screen(c.sql)
		if v != c.want {
			t.Errorf("screen(%q) = verdict %d, want %d (%v)", c.sql, v, c.want, ee)
			continue
		}
		if v == verdictRefuse && (ee == nil || ee.Kind != c.kind) {
			t.Errorf("screen(%q): refusal %v, want kind %s", c.sql, ee, c.kind)
		}
		if v != verdictRefuse && sent != c.sent {
			t.Errorf("screen(%q) sends %q, want %q", c.sql, sent, c.sent)
		}
	}
}
