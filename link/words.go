package link

import (
	"strings"
	"unicode"
)

// stopWords are question words that name no table, column or value. Words
// that often are names ("name", "date", "type", "number") are kept.
var stopWords = setOf(`a about above after all also among an and any are as at be been before being
below between both but by can could did do does each either every few for from give had has have
having he her here hers him his how i if in into is it its itself list many me more most much my
no nor not of off on once only or other our out over own please same she should show so some such
than that the their theirs them then there these they this those through to too under until up us
very was we were what whatever when where whether which while who whom whose why will with would
you your find return tell get display count total number`)

// weakWords are kept for phrase matching but score nothing alone: they are
// in half the column names of any schema.
var weakWords = setOf(`id name names ids code type date year value values`)

func setOf(s string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(s) {
		m[w] = true
		m[stem(w)] = true // terms are compared stemmed ("does" is "doe")
	}
	return m
}

// splitName cuts an identifier or a text into lower-case words at
// non-alphanumerics, at lower-to-upper case changes (EmployeePayHistory)
// and at letter-digit changes, before lower-casing, since lower-casing
// first would erase the CamelCase boundary.
func splitName(s string) []string {
	var out []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			out = append(out, strings.ToLower(string(cur)))
			cur = cur[:0]
		}
	}
	rs := []rune(s)
	for i, r := range rs {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			flush()
			continue
		}
		if i > 0 && len(cur) > 0 {
			p := rs[i-1]
			switch {
			case unicode.IsLower(p) && unicode.IsUpper(r):
				flush()
			case unicode.IsUpper(p) && unicode.IsUpper(r) && i+1 < len(rs) && unicode.IsLower(rs[i+1]):
				flush() // "HTMLPage" -> html, page
			case unicode.IsDigit(p) != unicode.IsDigit(r):
				flush()
			}
		}
		cur = append(cur, r)
	}
	flush()
	return out
}

// stem is a light English stemmer: plural and a few verb endings, enough
// that "singers" meets singer and "countries" meets country, without the
// surprises of a full Porter stemmer on names.
func stem(w string) string {
	n := len(w)
	switch {
	case n <= 3:
		return w
	case strings.HasSuffix(w, "ies") && n > 4:
		return w[:n-3] + "y"
	case strings.HasSuffix(w, "sses"), strings.HasSuffix(w, "xes"), strings.HasSuffix(w, "ches"), strings.HasSuffix(w, "shes"):
		return w[:n-2]
	case strings.HasSuffix(w, "ss"), strings.HasSuffix(w, "us"), strings.HasSuffix(w, "is"):
		return w
	case strings.HasSuffix(w, "s"):
		return w[:n-1]
	case strings.HasSuffix(w, "ing") && n > 5:
		return w[:n-3]
	case strings.HasSuffix(w, "ed") && n > 4:
		return w[:n-2]
	}
	return w
}

// terms are a text's words, stemmed, in order (stop words included, so
// phrases keep their positions).
func terms(s string) []string {
	ws := splitName(s)
	for i, w := range ws {
		ws[i] = stem(w)
	}
	return ws
}

// isContent reports whether a stemmed term may link on its own.
func isContent(t string) bool {
	return len(t) > 1 && !stopWords[t] && !weakWords[t] && !allDigits(t)
}

func allDigits(s string) bool {
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return s != ""
}

// containsPhrase reports whether the term sequence p occurs in q.
func containsPhrase(q, p []string) bool {
	if len(p) == 0 || len(p) > len(q) {
		return false
	}
outer:
	for i := 0; i+len(p) <= len(q); i++ {
		for j := range p {
			if q[i+j] != p[j] {
				continue outer
			}
		}
		return true
	}
	return false
}
