package duckdb

import (
	"fmt"
	"strings"
)

// DuckDB plans every statement separately, so thousands of one-row
// INSERTs cost a planner run each. Consecutive INSERT ... VALUES statements
// into the same table and columns are therefore merged into one multi-row
// INSERT. Only statements that certainly have that shape are merged; any
// doubt (comments, dollar quotes, ON CONFLICT, RETURNING, a SELECT) leaves
// the statement as it is.

// batch is one statement to execute, standing for stmts[first:last+1].
type batch struct {
	sql         string
	first, last int
}

func (b batch) where() string {
	if b.first == b.last {
		return fmt.Sprintf("statement %d", b.first+1)
	}
	return fmt.Sprintf("statements %d-%d (merged INSERTs)", b.first+1, b.last+1)
}

// maxMergedBytes keeps a merged INSERT to a size DuckDB parses quickly.
const maxMergedBytes = 1 << 20

func mergeInserts(stmts []string) []batch {
	var out []batch
	var head string   // "INSERT INTO t (a, b) VALUES" of the open batch
	var body []string // its tuple lists
	var size, first int
	flush := func(last int) {
		if body != nil {
			out = append(out, batch{sql: head + " " + strings.Join(body, ", "), first: first, last: last})
			body, size = nil, 0
		}
	}
	for i, s := range stmts {
		h, tuples, ok := splitInsert(s)
		if !ok {
			flush(i - 1)
			out = append(out, batch{sql: s, first: i, last: i})
			continue
		}
		if body != nil && (h != head || size+len(tuples) > maxMergedBytes) {
			flush(i - 1)
		}
		if body == nil {
			head, first = h, i
		}
		body = append(body, tuples)
		size += len(tuples)
	}
	flush(len(stmts) - 1)
	return out
}

// splitInsert splits "INSERT INTO t (cols) VALUES (..), (..);" into its
// head up to VALUES and its tuple lists, or reports ok=false when s is not
// exactly that.
func splitInsert(s string) (head, tuples string, ok bool) {
	s = strings.TrimSpace(s)
	for strings.HasSuffix(s, ";") {
		s = strings.TrimSpace(strings.TrimSuffix(s, ";"))
	}
	if len(s) < 12 || !strings.EqualFold(s[:6], "INSERT") || strings.ContainsAny(s, "$\\") ||
		strings.Contains(s, "--") || strings.Contains(s, "/*") || strings.Contains(s, ";") && !safeSemicolons(s) {
		return "", "", false
	}
	// Find the VALUES keyword outside quotes and parentheses.
	depth, i := 0, 0
	valuesAt := -1
	for i < len(s) && valuesAt < 0 {
		switch c := s[i]; {
		case c == '\'' || c == '"':
			end := closeQuote(s, i)
			if end < 0 {
				return "", "", false
			}
			i = end
		case c == '(':
			depth++
		case c == ')':
			depth--
		case depth == 0 && (c == 'v' || c == 'V') && i > 0 && isSpace(s[i-1]) &&
			len(s) >= i+6 && strings.EqualFold(s[i:i+6], "VALUES") && (len(s) == i+6 || isSpace(s[i+6]) || s[i+6] == '('):
			valuesAt = i
		}
		i++
	}
	if valuesAt < 0 {
		return "", "", false
	}
	// Keywords in one case, so statements differing only in that merge;
	// the table and columns keep theirs, as quoted names are
	// case-sensitive.
	head = strings.Join(strings.Fields(s[:valuesAt]), " ")
	if len(head) < 13 || !strings.EqualFold(head[:12], "INSERT INTO ") {
		return "", "", false
	}
	head = "INSERT INTO " + head[12:] + " VALUES"
	tuples = strings.TrimSpace(s[valuesAt+6:])
	if !onlyTuples(tuples) {
		return "", "", false
	}
	return head, tuples, true
}

// onlyTuples reports whether s is "(..), (..)" and nothing else.
func onlyTuples(s string) bool {
	depth, wantTuple := 0, true
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\'' || c == '"':
			if depth == 0 {
				return false
			}
			end := closeQuote(s, i)
			if end < 0 {
				return false
			}
			i = end
		case c == '(':
			if depth == 0 && !wantTuple {
				return false
			}
			depth++
			wantTuple = false
		case c == ')':
			depth--
			if depth < 0 {
				return false
			}
		case depth == 0 && c == ',':
			if wantTuple {
				return false
			}
			wantTuple = true
		case depth == 0 && !isSpace(c):
			return false
		}
	}
	return depth == 0 && !wantTuple
}

// closeQuote returns the index of the quote closing the one at s[i], with
// doubled quotes as escapes, or -1.
func closeQuote(s string, i int) int {
	q := s[i]
	for j := i + 1; j < len(s); j++ {
		if s[j] == q {
			if j+1 < len(s) && s[j+1] == q {
				j++
				continue
			}
			return j
		}
	}
	return -1
}

// safeSemicolons reports whether every ';' in s is inside a quoted string.
func safeSemicolons(s string) bool {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\'', '"':
			end := closeQuote(s, i)
			if end < 0 {
				return false
			}
			i = end
		case ';':
			return false
		}
	}
	return true
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' }
