package extract

import (
	"strings"

	"github.com/sqlgym/sqlgym/sqltext"
)

// bare finds a statement written without a fence or tag: the reply is a
// statement, or holds one, and the last one wins. A statement starts with
// SELECT or WITH (in capitals or all lower case, so that "Select the
// names..." in a sentence does not start one) at the beginning of a line,
// after a colon ("The query is: SELECT ..."; capitals only), or right after
// a backtick (`SELECT ...`, running to the closing backtick). It runs to
// its first semicolon, or to a blank line not followed by more of the
// query, or to a line of prose, or to the end. A WITH must continue as a
// common table expression does; a SELECT must have a FROM, unless it is the
// whole reply.
//
// Candidates that fail are read again from each later start, which in a
// hostile reply ("with\n" repeated) makes the reading quadratic, so the
// bytes read are bounded by bareWork times the reply's length: past that
// the search stops with the last statement found so far.
func bare(s string) string {
	sql, _ := bareWithin(s, bareWork*len(s)+bareWorkMin)
	return sql
}

// The work bound of the bare rule: bytes read, summed over candidates.
// No reply in the public data or the tests comes near it; see
// TestBareWorkBoundUnreached.
const (
	bareWork    = 4
	bareWorkMin = 32 << 10
)

// bareWithin is bare reading at most budget bytes over all candidates; it
// also reports whether the budget ran out.
func bareWithin(s string, budget int) (string, bool) {
	found := ""
	// Only white space and backticks come before s[lead]: a statement is
	// the whole reply only if it starts there at the latest.
	lead := len(s) - len(strings.TrimLeft(s, " \t\r\n`"))
	for i := 0; i < len(s); {
		if budget <= 0 {
			return found, true
		}
		start, inline := nextStart(s, i)
		if start < 0 {
			break
		}
		region := s[start:]
		if inline {
			k := strings.IndexByte(region, '`')
			if k < 0 {
				i = start + 1
				continue
			}
			region = region[:k]
		}
		n, read := extent(region)
		budget -= read + n
		whole := func() bool { return start <= lead && alone(s[start+n:]) }
		verdict := judge(region[:n], start <= lead)
		if verdict == acceptWhole && !whole() {
			verdict = reject
		}
		if verdict == reject {
			i = start + 1
			continue
		}
		budget -= n
		sql := clean(region[:n])
		if sql != "" && (verdict != unsure || plausible(sql, whole)) {
			found = sql
			i = start + max(n, 1)
			continue
		}
		i = start + 1
	}
	return found, false
}

// A bare candidate's verdict from judge.
type candidateVerdict uint8

const (
	unsure      candidateVerdict = iota // plausible decides
	accept                              // plausible would accept it
	reject                              // plausible would refuse it
	acceptWhole                         // accept if it is the whole reply
)

// judge tells, reading stmt once without keeping its tokens, what
// plausible would say of it: a SELECT with a FROM is accepted, one without
// is refused unless it may be the whole reply, a WITH is judged by its
// first 64 tokens. It is unsure when a leftover fence may change the
// tokens (clean turns it into a line break) or a long column list hides
// the answer. Most candidates of a long hostile reply are decided here,
// which keeps their cost to one reading and no allocation.
func judge(stmt string, first bool) candidateVerdict {
	if strings.Contains(stmt, "```") {
		return unsure
	}
	var head [64]sqltext.Token
	n, hasFrom := 0, false
	for pos := 0; pos < len(stmt); {
		t := sqltext.TokenAt(stmt, pos)
		pos = t.End()
		if !t.Significant() {
			continue
		}
		if n < len(head) {
			head[n] = t
		}
		n++
		hasFrom = hasFrom || t.IsWord("from")
	}
	switch {
	case n < 2:
		return reject
	case head[0].IsWord("with"):
		ok, short := cteMatch(head[1:min(n, len(head))])
		switch {
		case ok:
			return accept
		case !short || n <= len(head):
			return reject
		}
		return unsure
	case hasFrom:
		return accept
	case first:
		return acceptWhole
	}
	return reject
}

// alone reports whether the text after a statement is only white space,
// semicolons, comments and the backticks of inline code.
func alone(after string) bool {
	return sqltext.TrimStatement(strings.Trim(after, " \t\r\n`")) == ""
}

// nextStart returns the offset of the next place at or after i where a
// statement may start, and whether it follows a backtick; -1 when none.
func nextStart(s string, i int) (int, bool) {
	for ; i < len(s); i++ {
		kw := keywordAt(s, i)
		if kw == "" {
			continue
		}
		j := i - 1
		for j >= 0 && (s[j] == ' ' || s[j] == '\t') {
			j--
		}
		switch {
		case j < 0 || s[j] == '\n':
			return i, false
		case j == i-1 && s[j] == '`':
			return i, true
		case s[j] == ':' && kw == strings.ToUpper(kw):
			return i, false
		}
	}
	return -1, false
}

// keywordAt returns SELECT or WITH as written at s[i] when it is a whole
// word in capitals or lower case, else "".
func keywordAt(s string, i int) string {
	if i > 0 && isWordByte(s[i-1]) {
		return ""
	}
	for _, kw := range []string{"SELECT", "select", "WITH", "with"} {
		if strings.HasPrefix(s[i:], kw) && (i+len(kw) == len(s) || !isWordByte(s[i+len(kw)])) {
			return kw
		}
	}
	return ""
}

func isWordByte(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}

// extent returns how many bytes of region the statement starting it takes,
// and how many it read to know. It lexes lazily, stopping where the
// statement does.
func extent(region string) (n, read int) {
	isWith := len(region) >= 4 && strings.EqualFold(region[:4], "with")
	depth, end := 0, 0
	var last sqltext.Token // last significant token
	mainSelect := !isWith  // a WITH has reached its main SELECT
	for pos := 0; pos < len(region); {
		t := sqltext.TokenAt(region, pos)
		pos = t.End()
		switch {
		case t.IsPunct(";"):
			return end, pos
		case t.IsPunct("("):
			depth++
		case t.IsPunct(")"):
			depth--
		case depth <= 0 && t.IsWord("select"):
			mainSelect = true
		case t.Kind == sqltext.Space && depth <= 0 && strings.Contains(t.Text, "\n"):
			if pos >= len(region) {
				return end, pos
			}
			// The next token and line are read ahead: count them.
			next := sqltext.TokenAt(region, pos)
			read := max(next.End(), lineEnd(region, pos))
			if blankLine(t.Text) && !continues(next, isWith) {
				return end, read
			}
			if keywordAt(region, pos) != "" && mainSelect && !joins(last) {
				// Another statement starts on this line.
				return end, read
			}
			if proseLine(region[pos:]) {
				return end, read
			}
		}
		if t.Significant() {
			end, last = t.End(), t
		}
	}
	return end, len(region)
}

func lineEnd(s string, i int) int {
	if k := strings.IndexByte(s[i:], '\n'); k >= 0 {
		return i + k
	}
	return len(s)
}

// joins: after these a SELECT on the next line belongs to the same query.
func joins(t sqltext.Token) bool {
	for _, w := range []string{"union", "intersect", "except", "all", "distinct", "as"} {
		if t.IsWord(w) {
			return true
		}
	}
	return t.IsPunct("(") || t.IsPunct(",")
}

func blankLine(space string) bool {
	first := strings.IndexByte(space, '\n')
	return first >= 0 && strings.IndexByte(space[first+1:], '\n') >= 0
}

// clauseWords can start a line that continues a query after a blank line.
var clauseWords = map[string]bool{
	"from": true, "where": true, "group": true, "order": true, "having": true, "limit": true,
	"offset": true, "union": true, "intersect": true, "except": true, "join": true, "inner": true,
	"left": true, "right": true, "full": true, "outer": true, "cross": true, "natural": true,
	"on": true, "and": true, "or": true, "window": true, "qualify": true, "fetch": true,
}

func continues(t sqltext.Token, isWith bool) bool {
	if t.IsPunct(")") || t.IsPunct(",") {
		return true
	}
	if t.Kind != sqltext.Word {
		return false
	}
	w := strings.ToLower(t.Text)
	return clauseWords[w] || isWith && w == "select"
}

// sqlWords are words that start lines of SQL; a line starting with any
// other capitalised word may be prose.
var sqlWords = map[string]bool{
	"select": true, "with": true, "as": true, "case": true, "when": true, "then": true,
	"else": true, "end": true, "not": true, "in": true, "is": true, "null": true, "by": true,
	"asc": true, "desc": true, "distinct": true, "exists": true, "between": true, "like": true,
	"all": true, "any": true, "values": true, "using": true, "partition": true, "over": true,
	"count": true, "sum": true, "avg": true, "min": true, "max": true, "cast": true,
}

// proseLine reports whether the line that starts rest reads as prose or
// markdown rather than SQL: a heading, bold text or a rule, or a sentence
// (a capitalised word that is not SQL, then either a line ending in . : !
// or ? after a word, or four plain words in a row).
func proseLine(rest string) bool {
	line := rest
	if k := strings.IndexByte(line, '\n'); k >= 0 {
		line = line[:k]
	}
	line = strings.TrimSpace(line)
	if strings.HasPrefix(line, "#") || strings.HasPrefix(line, "**") || strings.HasPrefix(line, "---") {
		return true
	}
	// The first four words are all the rule reads: lex no further.
	var words []string
	for pos := 0; pos < len(line) && len(words) < 4; {
		t := sqltext.TokenAt(line, pos)
		pos = t.End()
		if t.Kind == sqltext.Space {
			continue
		}
		if t.Kind != sqltext.Word {
			break
		}
		words = append(words, t.Text)
	}
	if len(words) == 0 {
		return false
	}
	first := words[0]
	if !(first[0] >= 'A' && first[0] <= 'Z') || sqlWords[strings.ToLower(first)] || strings.ToUpper(first) == first {
		return false
	}
	if len(words) >= 4 {
		return true
	}
	last := line[len(line)-1]
	return len(words) >= 2 && strings.IndexByte(".:!?", last) >= 0
}

// plausible checks that a bare candidate is SQL rather than a sentence
// that happens to start with the word.
func plausible(sql string, whole func() bool) bool {
	toks := sqltext.Tokens(sql)
	sig := toks[:0:0]
	for _, t := range toks {
		if t.Significant() {
			sig = append(sig, t)
		}
	}
	if len(sig) < 2 {
		return false
	}
	if sig[0].IsWord("with") {
		return cteStart(sig[1:])
	}
	for _, t := range sig {
		if t.IsWord("from") {
			return true
		}
	}
	return whole()
}

// cteStart: [RECURSIVE] name [(columns)] AS [NOT] [MATERIALIZED] (
func cteStart(t []sqltext.Token) bool {
	ok, _ := cteMatch(t)
	return ok
}

// cteMatch is cteStart, also telling when t ran out before it could
// decide: more tokens might have matched.
func cteMatch(t []sqltext.Token) (ok, short bool) {
	if len(t) > 0 && t[0].IsWord("recursive") {
		t = t[1:]
	}
	if len(t) == 0 {
		return false, true
	}
	if t[0].Kind != sqltext.Word && t[0].Kind != sqltext.QuotedIdent {
		return false, false
	}
	t = t[1:]
	if len(t) > 0 && t[0].IsPunct("(") {
		depth := 0
		for len(t) > 0 {
			if t[0].IsPunct("(") {
				depth++
			} else if t[0].IsPunct(")") {
				depth--
			}
			t = t[1:]
			if depth == 0 {
				break
			}
		}
	}
	if len(t) == 0 {
		return false, true
	}
	if !t[0].IsWord("as") {
		return false, false
	}
	t = t[1:]
	for len(t) > 0 && (t[0].IsWord("not") || t[0].IsWord("materialized")) {
		t = t[1:]
	}
	if len(t) == 0 {
		return false, true
	}
	return t[0].IsPunct("("), false
}
