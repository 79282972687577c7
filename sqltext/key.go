package sqltext

import (
	"strings"
	"unicode/utf8"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/sqltext/lexer"
)

// Key returns the text under which the verifier deduplicates and caches a
// statement run on an engine of dialect d: two texts share a key only when
// that engine is certain to read them as the same token sequence, so the
// result of one stands for the other. Unlike Normalize, whose single
// lexer serves all three dialects at once, Key lexes by the engine's own
// rules and gives up wherever those rules are not certain: the key is then
// sql itself, byte for byte.
//
// What Key merges: runs of spaces, tabs, newlines and comments between
// tokens; the spacing next to ( ) , ; and between an operator and a
// neighbour that cannot join it; and the ASCII case of unquoted words on
// PostgreSQL, whose lexer folds them to lower case before anything reads
// them, and on SQLite, which matches keywords and every kind of name
// without regard to ASCII case and shows the written case nowhere but in
// result column labels (which no score reads) and EXPLAIN output (a text
// with EXPLAIN is kept whole, on every engine: DuckDB's EXPLAIN ANALYZE
// even prints the query). DuckDB keeps an alias's case in values (a struct
// field name, to_json's keys), so there case is kept. Strings, quoted
// identifiers and every operator are kept byte for byte. On SQLite a text
// with a quoted name or NATURAL is kept whole: there the written spacing
// of a result column can decide what a name refers to.
//
// Where Key gives up (see keyOK): a text over 16 KiB (engines cap a
// statement's length), a control character other than tab and
// newline (PostgreSQL and DuckDB end a -- comment at \r, SQLite does not),
// invalid UTF-8, a backslash (E'x' strings, standard_conforming_strings),
// $ (dollar quotes, parameters), an unterminated string, identifier or
// comment, a /* inside a block comment (PostgreSQL and DuckDB nest them,
// SQLite does not), non-ASCII outside quotes, a comment after a semicolon,
// a string that a later one could continue, and any character the
// dialect's table below does not know. An unknown dialect always gives sql.
//
// The key of a merged text is itself a text of the same class: it lexes
// back to the same key (Key is idempotent), so it can never equal a text
// that was kept byte for byte.
func Key(d sqlgym.Dialect, sql string) string {
	if k, ok := keyOK(d, sql); ok {
		return k
	}
	return sql
}

// keyMaxLen bounds the texts Key merges. Engines cap a statement's length
// (SQLite's SQLITE_LIMIT_SQL_LENGTH is 1 MiB in engine/sqlite), and a text
// padded past the cap with spaces fails where its short twin runs; every
// text up to this length runs on every engine (TestKeyMaxLenRuns).
const keyMaxLen = 16 << 10

// byte classes of a dialect's key lexer.
const (
	kBad     uint8 = iota // gives the key up
	kSpace                // ' ', \t, \n
	kWord                 // letters, digits, _ and .: keywords, names, numbers
	kOp                   // operator characters, which join into runs
	kPunct                // a token of its own everywhere: ( ) , ; and more per dialect
	kString               // '
	kIdent                // "
	kTick                 // ` (SQLite)
	kBracket              // [ (SQLite)
)

type keyTable [256]uint8

var (
	// SQLite's tokenize.c: - + * / % = < > ! | & ~ are its operator
	// characters; ? : @ # $ start parameters, which stay unmerged. Its
	// quoted names ("x", `x`, [x]) stay unmerged too: SQLite names a
	// result column without AS by its text as written, spacing and
	// comments included, and a quoted name can refer to it (so can
	// NATURAL JOIN, see keyOK): SELECT "a+1" FROM (SELECT a + 1 FROM t)
	// finds no such column and reads "a+1" as a string.
	sqliteKeys = newKeyTable("-+*/%=<>!|&~", "(),;", "'")
	// PostgreSQL's scan.l op_chars but ` (and $, refused), plus : whose
	// tokens (:, ::, :=) are fixed by their bytes too; [ ] are self tokens.
	postgresKeys = newKeyTable("~!@#^&|?+-*/%<>=:", "(),;[]", "'\"")
	// DuckDB's scanner is PostgreSQL's, with ? and # taken by parameters
	// and positional references, and { } for struct literals.
	duckdbKeys = newKeyTable("~!@^&|+-*/%<>=:", "(),;[]{}", "'\"")
	// MySQL's and MariaDB's lexer with the sql_mode engine/mysql sets
	// (no ANSI_QUOTES): "x" is a string like 'x', `x` a name kept byte for
	// byte; @ (variables), ? and { } give the key up.
	mysqlKeys = mysqlKeyTable()
)

func mysqlKeyTable() *keyTable {
	t := newKeyTable("~!^&|+-*/%<>=:", "(),;", "'`")
	t['"'] = kString
	return t
}

func keyTableOf(d sqlgym.Dialect) *keyTable {
	switch d {
	case sqlgym.DialectSQLite:
		return sqliteKeys
	case sqlgym.DialectPostgres:
		return postgresKeys
	case sqlgym.DialectDuckDB:
		return duckdbKeys
	case sqlgym.DialectMySQL:
		return mysqlKeys
	}
	return nil
}

func newKeyTable(ops, punct, quotes string) *keyTable {
	t := &keyTable{}
	t[' '], t['\t'], t['\n'] = kSpace, kSpace, kSpace
	for c := 'a'; c <= 'z'; c++ {
		t[c], t[c-'a'+'A'] = kWord, kWord
	}
	for c := '0'; c <= '9'; c++ {
		t[c] = kWord
	}
	t['_'], t['.'] = kWord, kWord
	for i := 0; i < len(ops); i++ {
		t[ops[i]] = kOp
	}
	for i := 0; i < len(punct); i++ {
		t[punct[i]] = kPunct
	}
	for i := 0; i < len(quotes); i++ {
		switch quotes[i] {
		case '\'':
			t['\''] = kString
		case '"':
			t['"'] = kIdent
		case '`':
			t['`'] = kTick
		case '[':
			t['['] = kBracket
		}
	}
	return t
}

// keyOK returns the merged key of sql, or false where it must stay as it
// is. The text is read as units: word runs, operator runs, punctuation and
// quoted tokens, kept byte for byte (but for case folding on PostgreSQL
// and SQLite).
// Every unit boundary is a token boundary for the engine and every unit
// lexes the same wherever it stands, so texts with the same units in the
// same order, glued or spaced the same where that matters, are the same
// token sequence.
func keyOK(d sqlgym.Dialect, sql string) (string, bool) {
	tab := keyTableOf(d)
	if tab == nil || len(sql) > keyMaxLen {
		return "", false
	}
	ascii := true
	for i := 0; i < len(sql); i++ {
		c := sql[i]
		if c < 0x20 && c != '\t' && c != '\n' || c == 0x7f || c == '\\' || c == '$' {
			return "", false
		}
		if c >= 0x80 {
			ascii = false
		}
		if readsOwnText(sql[i:]) {
			return "", false
		}
	}
	if !ascii && !utf8.ValidString(sql) {
		return "", false
	}
	// MySQL's table names are case-sensitive on Linux (FROM People is
	// not FROM people), so its words keep their case.
	my := d == sqlgym.DialectMySQL
	fold := d != sqlgym.DialectDuckDB && !my
	// SQLite alone does not join 'a'<newline>'b' into one string.
	joinsStrings := d != sqlgym.DialectSQLite

	var b strings.Builder
	b.Grow(len(sql))
	var (
		prev      uint8 // class of the last unit written, kBad for none
		prevExp   bool  // it was a word ending in e or E with a digit: 1e-5 is one number
		prevU     bool  // it was a word ending in u or U: U&'x' is one string
		prevStr   bool  // it ended with a string literal
		sep       bool  // a space or comment since the last unit
		afterSemi bool
	)
	for i := 0; i < len(sql); {
		c := sql[i]
		cls := tab[c]
		if my && c == '#' {
			// MySQL's other line comment.
			if afterSemi {
				return "", false
			}
			cm, _ := lexer.ReadMySQLComment(sql[i:])
			i += cm.Len
			sep = true
			continue
		}
		if c == '-' && i+1 < len(sql) && sql[i+1] == '-' {
			// On MySQL "--" starts a comment only before a space or a
			// control character: 1--1 is 1 minus minus 1.
			if _, comment := lexer.ReadMySQLComment(sql[i:]); afterSemi || my && !comment {
				return "", false
			}
			j := strings.IndexByte(sql[i:], '\n')
			if j < 0 {
				j = len(sql) - i
			}
			i += j
			sep = true
			continue
		}
		if c == '/' && i+1 < len(sql) && sql[i+1] == '*' {
			// The comment ends at the first */, unless a /* comes
			// before that, where the dialects part.
			end := strings.Index(sql[i+2:], "*/")
			if afterSemi || end < 0 || strings.Contains(sql[i+2:i+2+end+2], "/*") {
				return "", false
			}
			// MySQL runs the contents of /*! ... */ and /*M! ... */ and
			// reads optimizer hints in /*+ ... */: the text is kept as
			// it is.
			if cm, _ := lexer.ReadMySQLComment(sql[i:]); my && (cm.Exec || cm.Hint) {
				return "", false
			}
			i += 2 + end + 2
			sep = true
			continue
		}
		var n int // length of the unit at i
		switch cls {
		case kSpace:
			i++
			sep = true
			continue
		case kWord:
			n = 1
			for i+n < len(sql) && tab[sql[i+n]] == kWord {
				n++
			}
			// EXPLAIN shows names as written (SQLite's query plan, the
			// query itself in DuckDB's EXPLAIN ANALYZE), and SQLite's
			// NATURAL JOIN matches columns by their written names (see
			// sqliteKeys).
			if n == 7 && (strings.EqualFold(sql[i:i+7], "explain") ||
				d == sqlgym.DialectSQLite && strings.EqualFold(sql[i:i+7], "natural")) {
				return "", false
			}
		case kOp:
			n = 1
			for i+n < len(sql) && tab[sql[i+n]] == kOp {
				if p := sql[i+n-1 : i+n+1]; p == "--" || p == "/*" {
					n-- // the run ends where a comment starts
					break
				}
				n++
			}
		case kPunct:
			n = 1
		case kString, kIdent, kTick:
			n = quotedLen(sql[i:], c)
		case kBracket:
			n = strings.IndexByte(sql[i:], ']') + 1
		default:
			return "", false
		}
		if n <= 0 {
			return "", false // unterminated
		}
		// A glued exponent sign or U& would make one token of two
		// units; spaced, the space must stay.
		hazard := cls == kOp && (prevExp && (c == '+' || c == '-') || prevU && c == '&' && joinsStrings)
		if hazard && !sep || cls == kString && prevStr && joinsStrings && sep {
			return "", false
		}
		// MySQL reads a built-in function's name followed by a space as
		// another token ("Count ()" is not "Count()") unless IGNORE_SPACE
		// is set: a space before "(" stays.
		fnSpace := my && sep && prev == kWord && c == '('
		if prev != kBad && (space(prev, cls, sep, hazard) || fnSpace) {
			b.WriteByte(' ')
		}
		unit := sql[i : i+n]
		if cls == kWord && fold && hasUpper(unit) {
			writeLower(&b, unit)
		} else {
			b.WriteString(unit)
		}
		prevExp, prevU = false, false
		if cls == kWord {
			last := unit[len(unit)-1]
			prevExp = (last == 'e' || last == 'E') && strings.ContainsAny(unit, "0123456789")
			prevU = last == 'u' || last == 'U'
		}
		prevStr = cls == kString
		if c == ';' {
			afterSemi = true
		}
		prev, sep = cls, false
		i += n
	}
	if b.Len() == 0 {
		return "", false
	}
	return b.String(), true
}

// space reports whether the key keeps a space between two units. Next to
// punctuation and between an operator and a word, string or identifier
// the engine sees the same tokens spaced or not; two operator runs only
// meet across a space or comment, which must stay (= - is not =-); and
// everything else keeps the input's choice, since gluing a word to a
// quote can make a prefixed literal (E'x', X'00').
func space(prev, next uint8, sep, hazard bool) bool {
	switch {
	case prev == kPunct || next == kPunct:
		return false
	case prev == kOp && next == kOp:
		return true
	case prev == kOp || next == kOp:
		return sep && hazard
	}
	return sep
}

// quotedLen measures a token quoted with q whose doubled q stands for
// itself, or returns 0 when it does not close.
func quotedLen(s string, q byte) int {
	for j := 1; j < len(s); j++ {
		if s[j] == q {
			if j+1 < len(s) && s[j+1] == q {
				j++
				continue
			}
			return j + 1
		}
	}
	return 0
}

func hasUpper(s string) bool {
	for i := 0; i < len(s); i++ {
		if 'A' <= s[i] && s[i] <= 'Z' {
			return true
		}
	}
	return false
}

// readsOwnText reports whether s starts with the name (in any case) of
// something that shows a statement its own text as a value: PostgreSQL's
// and DuckDB's current_query(), PostgreSQL's pg_stat_activity (any
// pg_stat_ view or function) and pg_prepared_statements (pgx prepares every
// statement), DuckDB's duckdb_prepared_statements(), SQLite's sqlite_stmt.
// Any two texts differ there, so a text naming one anywhere is not merged.
func readsOwnText(s string) bool {
	if len(s) < 7 {
		return false
	}
	var w string
	switch s[0] | 0x20 {
	case 'c':
		w = "current_query"
	case 'p':
		w = "prepared_statements"
		if s[1]|0x20 == 'g' {
			w = "pg_stat"
		}
	case 's':
		w = "sqlite_stmt"
	case 'd':
		w = "duckdb_prepared_statements"
	default:
		return false
	}
	return len(s) >= len(w) && s[1]|0x20 == w[1] && strings.EqualFold(s[:len(w)], w)
}
