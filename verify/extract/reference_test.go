package extract

// The extraction rules as they were before they were made linear in the
// reply (issue 25), kept as the simple reference the fuzz tests compare
// with: quadratic or worse on hostile replies, so only fed short ones.

import (
	"strings"

	"github.com/sqlgym/sqlgym/sqltext"
)

// refFromCompletion is FromCompletion with the reference rules.
func refFromCompletion(completion, finishReason string) Result {
	if fr := strings.ToLower(strings.TrimSpace(finishReason)); fr == "length" || fr == "max_tokens" {
		return Result{Status: StatusTruncated}
	}
	visible := refStripReasoning(completion)
	blocks := fences(visible)
	for i := len(blocks) - 1; i >= 0; i-- {
		if b := blocks[i]; isSQLLang(b.lang) {
			if sql := clean(b.body); sql != "" {
				return ok(sql, MethodFenceSQL)
			}
		}
	}
	for i := len(blocks) - 1; i >= 0; i-- {
		if b := blocks[i]; !isSQLLang(b.lang) && sqltext.LooksLikeSQL(b.body) {
			if sql := clean(b.body); sql != "" {
				return ok(sql, MethodFence)
			}
		}
	}
	if sql, method := refFromTags(visible); sql != "" {
		return ok(sql, method)
	}
	if sql := refBare(maskFences(visible, blocks)); sql != "" {
		return ok(sql, MethodBare)
	}
	return Result{Status: StatusNoQuery}
}

func refFromTags(s string) (sql, method string) {
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

func refStripReasoning(s string) string {
	for {
		t := refStripReasoningOnce(s)
		if t == s {
			return s
		}
		s = t
	}
}

func refStripReasoningOnce(s string) string {
	lower := asciiLower(s)
	var b strings.Builder
	pos, inside := 0, false
	for i := 0; i < len(s); {
		j := strings.IndexByte(lower[i:], '<')
		if j < 0 {
			break
		}
		j += i
		if n := refHasTag(lower[j:], thinkOpen); n > 0 {
			if !inside {
				b.WriteString(s[pos:j])
				inside = true
			}
			i = j + n
			continue
		}
		if n := refHasTag(lower[j:], thinkClose); n > 0 {
			if !inside {
				// Reasoning began before the reply did.
				b.Reset()
			}
			inside = false
			pos, i = j+n, j+n
			continue
		}
		i = j + 1
	}
	if !inside {
		b.WriteString(s[pos:])
	}
	return b.String()
}

func refHasTag(s string, tags []string) int {
	for _, t := range tags {
		if strings.HasPrefix(s, t) {
			return len(t)
		}
	}
	return 0
}

func refBare(s string) string {
	found := ""
	for i := 0; i < len(s); {
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
		n := refExtent(region)
		sql := clean(region[:n])
		whole := func() bool { return refAlone(s[:start], s[start+n:]) }
		if sql != "" && plausible(sql, whole) {
			found = sql
			i = start + max(n, 1)
			continue
		}
		i = start + 1
	}
	return found
}

func refAlone(before, after string) bool {
	if strings.Trim(before, " \t\r\n`") != "" {
		return false
	}
	return sqltext.TrimStatement(strings.Trim(after, " \t\r\n`")) == ""
}

func refExtent(region string) int {
	isWith := len(region) >= 4 && strings.EqualFold(region[:4], "with")
	depth, end := 0, 0
	var last sqltext.Token // last significant token
	mainSelect := !isWith  // a WITH has reached its main SELECT
	for pos := 0; pos < len(region); {
		t := sqltext.TokenAt(region, pos)
		pos = t.End()
		switch {
		case t.IsPunct(";"):
			return end
		case t.IsPunct("("):
			depth++
		case t.IsPunct(")"):
			depth--
		case depth <= 0 && t.IsWord("select"):
			mainSelect = true
		case t.Kind == sqltext.Space && depth <= 0 && strings.Contains(t.Text, "\n"):
			if pos >= len(region) {
				return end
			}
			next := sqltext.TokenAt(region, pos)
			if blankLine(t.Text) && !continues(next, isWith) {
				return end
			}
			if keywordAt(region, pos) != "" && mainSelect && !joins(last) {
				// Another statement starts on this line.
				return end
			}
			if proseLine(region[pos:]) {
				return end
			}
		}
		if t.Significant() {
			end, last = t.End(), t
		}
	}
	return end
}
