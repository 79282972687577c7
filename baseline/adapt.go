package baseline

import (
	"sort"
	"strconv"
	"strings"

	"github.com/sqlgym/sqlgym/sqltext"
)

// Replacement is one literal of a retrieved query that adaptation changed.
type Replacement struct {
	From string `json:"from"` // the literal as the retrieved query wrote it
	To   string `json:"to"`   // the literal written in its place
}

// slot is a value of the retrieved question that its query writes as a
// literal: every literal token holding it is rewritten together.
type slot struct {
	kind    kind
	key     string // lower-cased content, to merge repeated literals
	pos     int    // where the retrieved question names it
	lits    []int  // indexes of the literal tokens
	content string // the content as the query writes it (first literal)
}

// adapt rewrites the literals of sql, the query of a retrieved question
// oldQ, for the new question newQ. The rule:
//
//   - A literal of sql is adaptable when oldQ names its value: a number
//     literal (or a quoted one holding a number) that equals a number of
//     oldQ, or a string literal whose text, less LIKE's % wildcards at its
//     ends, is a value of oldQ or occurs in oldQ as whole words, ignoring
//     case.
//   - The adaptable literals are ordered by where oldQ names them; the
//     values of newQ (questionValues) by where newQ names them. The i-th
//     adaptable literal of a kind gets the i-th value of newQ of that kind:
//     numbers for numbers, text for text. A literal without a partner stays
//     as it is.
//   - A new text value keeps the literal's quoting and wildcards, and its
//     case when the old literal was all lower or all upper case while oldQ
//     wrote it otherwise (the database stores it so); a known database
//     value keeps the database's spelling.
func adapt(sql, oldQ, newQ string, known []string) (string, []Replacement) {
	toks := sqltext.Tokens(sql)
	oldVals := questionValues(oldQ, known)
	var slots []*slot
	byKey := map[string]*slot{}
	for i, t := range toks {
		content, ok := literalContent(t)
		if !ok {
			continue
		}
		k, pos, found := findInQuestion(content, t.Kind == sqltext.Number, oldQ, oldVals)
		if !found {
			continue
		}
		key := strconv.Itoa(int(k)) + "\x00" + strings.ToLower(content)
		s := byKey[key]
		if s == nil {
			s = &slot{kind: k, key: key, pos: pos, content: content}
			byKey[key] = s
			slots = append(slots, s)
		}
		s.lits = append(s.lits, i)
	}
	if len(slots) == 0 {
		return sql, nil
	}
	sort.SliceStable(slots, func(i, j int) bool { return slots[i].pos < slots[j].pos })
	newVals := questionValues(newQ, known)
	// One cursor per kind walks newVals, passing over the other kind's
	// values, which that kind's cursor sees itself.
	next := map[kind]int{}
	repl := map[int]string{}
	var out []Replacement
	for _, s := range slots {
		var nv *value
		for next[s.kind] < len(newVals) {
			v := &newVals[next[s.kind]]
			next[s.kind]++
			if v.kind == s.kind {
				nv = v
				break
			}
		}
		if nv == nil {
			continue
		}
		for _, li := range s.lits {
			t := toks[li]
			text := render(t, nv, oldQ)
			if text != t.Text {
				repl[li] = text
				out = append(out, Replacement{From: t.Text, To: text})
			}
		}
	}
	if len(repl) == 0 {
		return sql, nil
	}
	var b strings.Builder
	for i, t := range toks {
		if r, ok := repl[i]; ok {
			b.WriteString(r)
		} else {
			b.WriteString(t.Text)
		}
	}
	return b.String(), out
}

// literalContent returns the value a literal token holds: a number as
// written, a plain '...' string unquoted with LIKE's % wildcards at its ends
// dropped. Prefixed strings (E”, X”, N”) and dollar quoting are left
// alone: nobody asks a question in those.
func literalContent(t sqltext.Token) (string, bool) {
	switch {
	case t.Kind == sqltext.Number:
		return t.Text, true
	case t.Kind == sqltext.String && len(t.Text) >= 2 && t.Text[0] == '\'' && t.Text[len(t.Text)-1] == '\'':
		s := strings.ReplaceAll(t.Text[1:len(t.Text)-1], "''", "'")
		s = strings.TrimSpace(strings.Trim(s, "%"))
		return s, s != ""
	}
	return "", false
}

// findInQuestion says whether question q names a literal's content, as
// which kind, and where.
func findInQuestion(content string, numberToken bool, q string, vals []value) (kind, int, bool) {
	if isNumber(content) {
		want, _ := strconv.ParseFloat(content, 64)
		for _, v := range vals {
			if v.kind == kindNumber {
				if got, err := strconv.ParseFloat(v.text, 64); err == nil && got == want {
					return kindNumber, v.pos, true
				}
			}
		}
		if numberToken {
			return 0, 0, false
		}
	}
	for _, v := range vals {
		if v.kind == kindText && strings.EqualFold(v.text, content) {
			return kindText, v.pos, true
		}
	}
	lq, lc := strings.ToLower(q), strings.ToLower(content)
	for from := 0; ; {
		i := strings.Index(lq[from:], lc)
		if i < 0 {
			return 0, 0, false
		}
		i += from
		if wordBounded(lq, i, i+len(lc)) {
			return kindText, i, true
		}
		from = i + len(lc)
	}
}

// render writes new value v in the place of literal token t, which held a
// value of oldQ.
func render(t sqltext.Token, v *value, oldQ string) string {
	if t.Kind == sqltext.Number {
		return v.text
	}
	body := t.Text[1 : len(t.Text)-1]
	inner := strings.TrimSpace(strings.Trim(body, "%"))
	start := strings.Index(body, inner)
	prefix, suffix := body[:start], body[start+len(inner):]
	text := v.text
	if !v.known {
		old := strings.ReplaceAll(inner, "''", "'")
		if hasLetter(old) && !strings.Contains(oldQ, old) {
			switch old {
			case strings.ToLower(old):
				text = strings.ToLower(text)
			case strings.ToUpper(old):
				text = strings.ToUpper(text)
			}
		}
	}
	return "'" + prefix + strings.ReplaceAll(text, "'", "''") + suffix + "'"
}

func hasLetter(s string) bool { return strings.ToLower(s) != strings.ToUpper(s) }
