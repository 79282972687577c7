package enginetest

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym"
)

// SameValue reports whether two values are the same canonical value: same
// kind and the fields that kind uses. Floats compare exactly; decimals by
// their text, which is what the engine printed.
func SameValue(a, b sqlgym.Value) bool {
	if a.Kind != b.Kind {
		return false
	}
	switch a.Kind {
	case sqlgym.KindNull:
		return true
	case sqlgym.KindInt, sqlgym.KindBool:
		return a.Int == b.Int
	case sqlgym.KindFloat:
		return a.Float == b.Float
	}
	return a.Str == b.Str
}

// FormatValue renders v with its kind, for failure messages.
func FormatValue(v sqlgym.Value) string {
	return fmt.Sprintf("%s(%q)", v.Kind, v.String())
}

func formatRow(row []sqlgym.Value) string {
	parts := make([]string, len(row))
	for i, v := range row {
		parts[i] = FormatValue(v)
	}
	return "[" + strings.Join(parts, " ") + "]"
}

// ExpectExecError fails t unless err is an *sqlgym.ExecError of the given
// kind carrying a non-empty message.
func ExpectExecError(t testing.TB, err error, kind sqlgym.ErrorKind) {
	t.Helper()
	var ee *sqlgym.ExecError
	if !errors.As(err, &ee) {
		t.Errorf("want *sqlgym.ExecError kind %s, got %T: %v", kind, err, err)
		return
	}
	if ee.Kind != kind {
		t.Errorf("want ExecError kind %s, got kind %s (msg %q)", kind, ee.Kind, ee.Msg)
	}
	if ee.Msg == "" {
		t.Errorf("ExecError kind %s has an empty Msg", ee.Kind)
	}
}

// ExpectRows fails t unless res has exactly these columns and rows, in order.
func ExpectRows(t testing.TB, res *sqlgym.ResultSet, cols []string, rows [][]sqlgym.Value) {
	t.Helper()
	if res == nil {
		t.Errorf("nil result")
		return
	}
	if !equalStrings(res.Columns, cols) {
		t.Errorf("columns %q, want %q", res.Columns, cols)
	}
	if len(res.Rows) != len(rows) {
		t.Errorf("%d rows, want %d", len(res.Rows), len(rows))
		return
	}
	for i := range rows {
		if len(res.Rows[i]) != len(rows[i]) {
			t.Errorf("row %d has %d cells, want %d", i, len(res.Rows[i]), len(rows[i]))
			continue
		}
		for j := range rows[i] {
			if !SameValue(res.Rows[i][j], rows[i][j]) {
				t.Errorf("row %d: got %s, want %s", i, formatRow(res.Rows[i]), formatRow(rows[i]))
				break
			}
		}
	}
}

func equalStrings(a, b []string) bool {
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
