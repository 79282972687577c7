package lexer

import "strings"

// MySQLComment is a comment as MySQL and MariaDB read it under the
// sql_mode engine/mysql sets (no ANSI_QUOTES, backslash escapes on). The
// result-cache key (sqltext.Key) and engine/mysql's screen both read comments
// through ReadMySQLComment, so that the two agree on what the server runs.
type MySQLComment struct {
	// Len is the comment's length in bytes; a line comment's stops before
	// its newline.
	Len int
	// Exec is set for an executable comment, /*! ... */, /*!50001 ... */
	// or MariaDB's /*M! ... */, whose contents the server runs whatever
	// the version number says; Body is then that code (the version number
	// dropped) and BodyPos its offset in the text read.
	Exec    bool
	Body    string
	BodyPos int
	// Hint is set for an optimizer hint /*+ ... */, which MySQL 8 reads
	// (SET_VAR, MAX_EXECUTION_TIME).
	Hint bool
	// Unterminated is set for a /* without its */: Len runs to the end.
	Unterminated bool
}

// ReadMySQLComment reads the comment s starts with: # and -- followed by
// white space, a control character or the end run to the end of the line
// (MySQL reads --1 as two minus signs, not a comment), /* to the first
// */ (nesting is not read). ok is false when s starts no comment.
func ReadMySQLComment(s string) (c MySQLComment, ok bool) {
	switch {
	case strings.HasPrefix(s, "#"),
		strings.HasPrefix(s, "--") && (len(s) == 2 || s[2] <= ' '):
		c.Len = len(s)
		if j := strings.IndexByte(s, '\n'); j >= 0 {
			c.Len = j
		}
		return c, true
	case strings.HasPrefix(s, "/*"):
		end := strings.Index(s[2:], "*/")
		if end < 0 {
			return MySQLComment{Len: len(s), Unterminated: true}, true
		}
		c.Len = end + 4
		body := s[2 : 2+end]
		switch {
		case strings.HasPrefix(body, "!"):
			c.Exec, c.BodyPos = true, 3
		case strings.HasPrefix(body, "M!"):
			c.Exec, c.BodyPos = true, 4
		case strings.HasPrefix(body, "+"):
			c.Hint = true
		}
		if c.Exec {
			// A server version may follow: five or six digits.
			n := 0
			for c.BodyPos+n < 2+end && n < 6 && s[c.BodyPos+n] >= '0' && s[c.BodyPos+n] <= '9' {
				n++
			}
			if n >= 5 {
				c.BodyPos += n
			}
			c.Body = s[c.BodyPos : 2+end]
		}
		return c, true
	}
	return MySQLComment{}, false
}
