package baseline

import (
	"sort"
	"strconv"
	"strings"
	"time"

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
//   - The adaptable literals are ordered by where oldQ names them, the
//     values of newQ (questionValues) by where newQ names them, and each
//     adaptable literal takes the new value of its own kind (numbers for
//     numbers, text for text) at its place in that order (see pair for how
//     values both questions share are passed over). A literal without a
//     partner stays as it is.
//   - A new text value keeps the literal's quoting and wildcards, and its
//     case when the old literal was all lower or all upper case while oldQ
//     wrote it otherwise (the database stores it so); a known database
//     value keeps the database's spelling.
//   - Date literals the old question does not name move with the one it
//     does: by the days between the old and the new date when a named date
//     changed, else by the years between the first years (1900 to 2100)
//     the two questions name. "Orders in 2023" is written with '2023-01-01'
//     and '2024-01-01', "shipped on 2023-12-26" with '2023-12-27' as the
//     end of the day.
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
	sort.SliceStable(slots, func(i, j int) bool { return slots[i].pos < slots[j].pos })
	newVals := questionValues(newQ, known)
	repl := map[int]string{}
	var out []Replacement
	var days *int // the shift of a date the questions name
	for _, k := range []kind{kindNumber, kindText} {
		for _, p := range pair(slots, ofKind(oldVals, k), ofKind(newVals, k), k) {
			if d, ok := dayDiff(p.slot.content, p.val.text); ok && days == nil {
				days = &d
			}
			for _, li := range p.slot.lits {
				t := toks[li]
				text := render(t, p.val, oldQ)
				if text != t.Text {
					repl[li] = text
					out = append(out, Replacement{From: t.Text, To: text})
				}
			}
		}
	}
	// Dates the question does not name but the query derives from it (the
	// day after, the first of the next year) move with the named one.
	years, hasYears := yearDiff(oldVals, newVals)
	for i, t := range toks {
		if _, done := repl[i]; done || t.Kind != sqltext.String || len(t.Text) < 2 || t.Text[0] != '\'' {
			continue
		}
		var text string
		var ok bool
		switch {
		case days != nil:
			text, ok = shiftDate(t.Text, 0, *days)
		case hasYears:
			text, ok = shiftDate(t.Text, years, 0)
		}
		if ok && text != t.Text {
			repl[i] = text
			out = append(out, Replacement{From: t.Text, To: text})
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return strings.Index(sql, out[i].From) < strings.Index(sql, out[j].From) })
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

func ofKind(vals []value, k kind) []value {
	var out []value
	for _, v := range vals {
		if v.kind == k {
			out = append(out, v)
		}
	}
	return out
}

type pairing struct {
	slot *slot
	val  *value
}

// pair gives the slots of kind k their new values. First the values both
// questions name that are no slot are set aside on both sides: words the
// two questions share ("shipped" in "shipped on 2023-12-26"), not values
// that changed. Then, when both questions name as many values as are left,
// a slot takes the new value at its own place among them; otherwise the
// slots, in the order the old question names them, take the new values in
// order.
func pair(slots []*slot, oldK, newK []value, k kind) []pairing {
	var mine []*slot
	isSlot := map[string]bool{}
	for _, s := range slots {
		if s.kind == k {
			mine = append(mine, s)
			isSlot[strings.ToLower(s.content)] = true
		}
	}
	if len(mine) == 0 || len(newK) == 0 {
		return nil
	}
	texts := func(vs []value) map[string]bool {
		m := map[string]bool{}
		for _, v := range vs {
			m[strings.ToLower(v.text)] = true
		}
		return m
	}
	inOld, inNew := texts(oldK), texts(newK)
	var oldL, newL []value
	for _, v := range oldK {
		if l := strings.ToLower(v.text); isSlot[l] || !inNew[l] {
			oldL = append(oldL, v)
		}
	}
	for _, v := range newK {
		if l := strings.ToLower(v.text); !inOld[l] || isSlot[l] {
			newL = append(newL, v)
		}
	}
	var out []pairing
	if len(oldL) == len(newL) {
		ords := make([]int, len(mine))
		ok := true
		for i, s := range mine {
			ords[i] = -1
			for j, v := range oldL {
				if v.pos == s.pos {
					ords[i] = j
				}
			}
			ok = ok && ords[i] >= 0
		}
		if ok {
			for i, s := range mine {
				out = append(out, pairing{s, &newL[ords[i]]})
			}
			return out
		}
	}
	for i, s := range mine {
		if i == len(newL) {
			break
		}
		out = append(out, pairing{s, &newL[i]})
	}
	return out
}

// dayDiff is the number of days from date a to date b, both 2006-01-02.
func dayDiff(a, b string) (int, bool) {
	ta, err1 := time.Parse(time.DateOnly, a)
	tb, err2 := time.Parse(time.DateOnly, b)
	if err1 != nil || err2 != nil {
		return 0, false
	}
	return int(tb.Sub(ta).Hours() / 24), true
}

// yearDiff is the difference between the first years (whole numbers from
// 1900 to 2100) the two questions name.
func yearDiff(oldVals, newVals []value) (int, bool) {
	first := func(vals []value) (int, bool) {
		for _, v := range vals {
			if y, err := strconv.Atoi(v.text); err == nil && v.kind == kindNumber && y >= 1900 && y <= 2100 {
				return y, true
			}
		}
		return 0, false
	}
	a, ok1 := first(oldVals)
	b, ok2 := first(newVals)
	return b - a, ok1 && ok2
}

// shiftDate moves a '2006-01-02...' or '2006-01' literal by years and
// days, keeping whatever follows the date (a time of day).
func shiftDate(lit string, years, days int) (string, bool) {
	body := lit[1 : len(lit)-1]
	switch {
	case len(body) >= 10 && isDate(body[:10]):
		t, err := time.Parse(time.DateOnly, body[:10])
		if err != nil {
			return "", false
		}
		return "'" + t.AddDate(years, 0, days).Format(time.DateOnly) + body[10:] + "'", true
	case len(body) == 7 && days == 0 && isDate(body+"-01"):
		t, err := time.Parse(time.DateOnly, body+"-01")
		if err != nil {
			return "", false
		}
		return "'" + t.AddDate(years, 0, 0).Format("2006-01") + "'", true
	}
	return "", false
}
