package extract

import (
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
func fromTags(s string) (sql, method string) {
	lower := asciiLower(s)
	var found []tagged
	for _, t := range answerTags {
		open, close := "<"+t.name+">", "</"+t.name+">"
		for i := 0; ; {
			j := strings.Index(lower[i:], open)
			if j < 0 {
				break
			}
			from := i + j + len(open)
			body := s[from:]
			if k := strings.Index(lower[from:], close); k >= 0 {
				body = s[from : from+k]
			}
			found = append(found, tagged{method: t.method, body: body, start: i + j})
			i = from
		}
	}
	best := -1
	for _, f := range found {
		if f.start <= best {
			continue
		}
		code := unwrap(f.body)
		if code == "" || f.method != MethodTagSQL && !sqltext.LooksLikeSQL(code) {
			continue
		}
		best, sql, method = f.start, code, f.method
	}
	return sql, method
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
