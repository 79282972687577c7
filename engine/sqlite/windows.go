package sqlite

import (
	"fmt"
	"strings"

	"github.com/sqlgym/sqlgym"
)

// maxWindows is how many window functions (OVER clauses) one statement
// may hold. SQLite's preparation of window functions grows about with the
// cube of their count and runs before any budget is armed: 300 take
// 0.4 s, 600 take 2.5 s and are then refused as too deep, 1,200 take 20
// to 40 s (2 busy cores). No honest query comes near 100; refusing more
// before preparing bounds the parse at a few milliseconds.
const maxWindows = 100

// checkWindows refuses a statement holding more than maxWindows OVER
// keywords outside strings, quoted identifiers and comments. A column
// named over counts too; the bound is far above any real use.
func checkWindows(sql string) error {
	if n := countOver(sql); n > maxWindows {
		return &sqlgym.ExecError{Kind: sqlgym.ErrKindOther,
			Msg: fmt.Sprintf("statement too complex: %d window functions (OVER), more than the %d one statement may hold; compute fewer windows or share one with WINDOW", n, maxWindows)}
	}
	return nil
}

// countOver counts the bare words OVER in sql, lexing SQLite's strings,
// quoted identifiers and comments so that text inside them is skipped.
// It stops counting past maxWindows+1.
func countOver(sql string) int {
	n := 0
	for i := 0; i < len(sql) && n <= maxWindows; {
		c := sql[i]
		switch {
		case c == '\'' || c == '"' || c == '`':
			i = skipQuoted(sql, i, c)
		case c == '[':
			i = skipTo(sql, i+1, "]")
		case c == '-' && i+1 < len(sql) && sql[i+1] == '-':
			i = skipTo(sql, i+2, "\n")
		case c == '/' && i+1 < len(sql) && sql[i+1] == '*':
			i = skipTo(sql, i+2, "*/")
		case isWordByte(c):
			j := i
			for j < len(sql) && isWordByte(sql[j]) {
				j++
			}
			if j-i == 4 && (sql[i]|0x20) == 'o' && (sql[i+1]|0x20) == 'v' && (sql[i+2]|0x20) == 'e' && (sql[i+3]|0x20) == 'r' {
				n++
			}
			i = j
		default:
			i++
		}
	}
	return n
}

func isWordByte(c byte) bool {
	return c == '_' || c == '$' || c >= 0x80 || (c|0x20) >= 'a' && (c|0x20) <= 'z' || c >= '0' && c <= '9'
}

// skipQuoted returns the index after the quoted text starting at i; a
// doubled quote is an escaped one. Unclosed text runs to the end.
func skipQuoted(s string, i int, q byte) int {
	for j := i + 1; j < len(s); j++ {
		if s[j] == q {
			if j+1 < len(s) && s[j+1] == q {
				j++
				continue
			}
			return j + 1
		}
	}
	return len(s)
}

// skipTo returns the index after the first end at or after i, or len(s).
func skipTo(s string, i int, end string) int {
	if i >= len(s) {
		return len(s)
	}
	if j := strings.Index(s[i:], end); j >= 0 {
		return i + j + len(end)
	}
	return len(s)
}
