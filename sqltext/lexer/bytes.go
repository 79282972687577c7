package lexer

// QuotedEnd returns the index after the quote q closing the literal or
// name opened at s[open]: a doubled q stands for itself and, with
// backslash, a backslash escapes the next byte. closed is false when the
// text ends first (the index is then len(s)).
func QuotedEnd(s string, open int, q byte, backslash bool) (end int, closed bool) {
	for j := open + 1; j < len(s); j++ {
		switch s[j] {
		case '\\':
			if backslash {
				j++
			}
		case q:
			if j+1 < len(s) && s[j+1] == q {
				j++
				continue
			}
			return j + 1, true
		}
	}
	return len(s), false
}

// IsSpace reports the bytes the four engines skip as white space.
func IsSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'
}

// IsIdentByte reports the bytes of a bare identifier or keyword: ASCII
// letters and digits, _ and $, and every byte of a multi-byte UTF-8
// character (SQLite, PostgreSQL and MySQL all take non-ASCII bytes in
// bare names).
func IsIdentByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c >= 0x80 || c >= '0' && c <= '9' || c == '$'
}
