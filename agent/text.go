package agent

import (
	"regexp"
	"strings"

	"github.com/sqlgym/sqlgym/verify/extract"
)

// textActions is what a text-protocol reply asks for: the queries to run
// (<sql> blocks, in order) and the submitted query (the last <solution>).
type textActions struct {
	runs      []string
	solution  string
	submitted bool
}

var thinkBlock = regexp.MustCompile(`(?s)<think>.*?</think>`)

// visibleText drops reasoning a server left in the content: complete
// <think> blocks, and everything up to a lone </think> (chat templates
// that open the block in the prompt leave only its end in the reply).
func visibleText(s string) string {
	s = thinkBlock.ReplaceAllString(s, "")
	if i := strings.LastIndex(s, "</think>"); i >= 0 {
		s = s[i+len("</think>"):]
	}
	return s
}

// parseText reads the tags of a reply. An opening tag left unclosed at the
// end counts as closed there: a stop sequence on the closing tag (common in
// multi-turn rollouts) cuts it from the reply.
func parseText(content string) textActions {
	var a textActions
	a.runs = append(a.runs, tagBodies(content, "sql")...)
	if sols := tagBodies(content, "solution"); len(sols) > 0 {
		a.solution, a.submitted = sols[len(sols)-1], true
	}
	return a
}

// tagBodies returns the cleaned SQL inside each <tag>...</tag>, tags
// matched without regard to case.
func tagBodies(content, tag string) []string {
	lower := strings.ToLower(content)
	open, closing := "<"+tag+">", "</"+tag+">"
	var out []string
	for i := 0; ; {
		j := strings.Index(lower[i:], open)
		if j < 0 {
			return out
		}
		start := i + j + len(open)
		end := len(content)
		next := len(content)
		if k := strings.Index(lower[start:], closing); k >= 0 {
			end = start + k
			next = end + len(closing)
		}
		out = append(out, cleanSQL(content[start:end]))
		i = next
	}
}

// cleanSQL takes the query out of a tag's body, which may hold a fenced
// block or the bare statement.
func cleanSQL(body string) string {
	if r := extract.FromCompletion(body, ""); r.Status == extract.StatusOK {
		return r.SQL
	}
	return strings.TrimSpace(body)
}
