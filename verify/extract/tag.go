package extract

import (
	"sort"
	"strings"

	"github.com/sqlgym/sqlgym/sqltext"
)

var answerTags = []struct{ name, method string }{
	{"sql", MethodTagSQL},
	{"answer", MethodTagAnswer},
	{"solution", MethodTagSolution},
}

type tagged struct {
	method string
	body   string
	start  int
}

// fromTags returns the content of the last <sql>, <answer> or <solution>
// tag that holds SQL (tag names in any letter case). An unclosed tag runs
// to the end of the reply: serving stacks often stop on "</answer>" and
// strip it. Content that is itself fenced yields the fence's code. A <sql>
// tag needs a statement inside; <answer> and <solution> also hold prose
// answers, so theirs must look like SQL.
//
// Of several opening tags of one name with no closing tag between them,
// only the last counts: the content of a tag never holds an opening tag of
// its own name. That keeps the contents of one name apart from each other,
// so reading them all costs one pass over the reply, where letting each of
// n unclosed tags run to the end cost n passes (issue 25).
func fromTags(s string) (sql, method string) {
	lower := asciiLower(s)
	var found []tagged
	for _, t := range answerTags {
		found = appendTags(found, s, lower, t.name, t.method)
	}
	// The last by where it opens wins; stop at the first that qualifies.
	sort.Slice(found, func(i, j int) bool { return found[i].start > found[j].start })
	for _, f := range found {
		code := unwrap(f.body)
		if code == "" || f.method != MethodTagSQL && !sqltext.LooksLikeSQL(code) {
			continue
		}
		return code, f.method
	}
	return "", ""
}

// appendTags appends the tags of one name in s, reading lower (s with ASCII
// letters lower-cased) once from start to end: an opening tag waits for its
// close, and a later opening tag before that close takes its place.
func appendTags(found []tagged, s, lower, name, method string) []tagged {
	open, close := "<"+name+">", "</"+name+">"
	pending := -1 // offset of the opening tag waiting for its close
	for i := 0; i < len(lower); {
		j := strings.IndexByte(lower[i:], '<')
		if j < 0 {
			break
		}
		j += i
		switch {
		case strings.HasPrefix(lower[j:], open):
			pending = j
			i = j + len(open)
		case strings.HasPrefix(lower[j:], close):
			if pending >= 0 {
				found = append(found, tagged{method: method, body: s[pending+len(open) : j], start: pending})
				pending = -1
			}
			i = j + len(close)
		default:
			i = j + 1
		}
	}
	if pending >= 0 {
		found = append(found, tagged{method: method, body: s[pending+len(open):], start: pending})
	}
	return found
}

// unwrap returns the SQL in a tag's content: the code of its last SQL fence
// or else its last fence with a statement, the inside of `inline code`, or
// the content itself.
func unwrap(body string) string {
	if blocks := fences(body); len(blocks) > 0 {
		for i := len(blocks) - 1; i >= 0; i-- {
			if isSQLLang(blocks[i].lang) {
				if sql := clean(blocks[i].body); sql != "" {
					return sql
				}
			}
		}
		for i := len(blocks) - 1; i >= 0; i-- {
			if sql := clean(blocks[i].body); sql != "" {
				return sql
			}
		}
	}
	t := strings.TrimSpace(body)
	if len(t) > 2 && t[0] == '`' && t[len(t)-1] == '`' && strings.Count(t, "`") == 2 {
		t = t[1 : len(t)-1]
	}
	return clean(t)
}
