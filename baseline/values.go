package baseline

import (
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/sqlgym/sqlgym"
)

// kind is what sort of literal a value stands for: adaptation only puts a
// number where a number was and text where text was.
type kind uint8

const (
	kindNumber kind = iota
	kindText
)

// value is a value a question names, at question[pos:end]. text is the value
// itself: without quotes, with a known database value's own spelling, with
// number words as digits.
type value struct {
	text     string
	kind     kind
	pos, end int
	// known marks a known database value: its spelling is the database's,
	// not the question's, and adaptation keeps it as it is.
	known bool
}

// numberWords are the number words read as numbers. "one" is left out: in
// "which one" or "the one with" it is no number, and the questions that
// mean 1 usually say "the" ("the most expensive").
var numberWords = map[string]string{
	"two": "2", "three": "3", "four": "4", "five": "5", "six": "6",
	"seven": "7", "eight": "8", "nine": "9", "ten": "10",
}

// notValues are capitalised words that start questions or are capitalised
// for other reasons than naming a value. They are dropped from the front of
// a capitalised phrase: "In France" names France.
var notValues = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`what which who whom whose when where why how list show find give
		return count display get tell please for in of on at to by with from the a an among across
		between during after before since is are was were do does did can could would should will
		each every all any some select order sort compute calculate provide name names i id ids
		also and or but not no yes if then than that this these those it its there here please
		excluding including only top total average sum number`) {
		notValues[w] = true
	}
}

// questionValues finds the values a question names, in order of
// appearance, by these rules, earlier rules winning where spans overlap:
//  1. a phrase in double quotes, single quotes or typographic quotes;
//  2. a known value of the database (known, longest first), matched as
//     whole words ignoring case, and given the database's own spelling;
//  3. a date written 2024-01-31 (text, as SQL writes dates);
//  4. a number (digits, optional fraction; commas between digit groups
//     dropped), or a number word from two to ten;
//  5. a run of capitalised words, less the question words in front of it;
//     a single capitalised word that begins a sentence is no value.
func questionValues(q string, known []string) []value {
	var vals []value
	taken := func(pos, end int) bool {
		for _, v := range vals {
			if pos < v.end && v.pos < end {
				return true
			}
		}
		return false
	}
	add := func(v value) {
		if v.text != "" && !taken(v.pos, v.end) {
			vals = append(vals, v)
		}
	}
	for _, v := range quotedPhrases(q) {
		add(v)
	}
	lq := strings.ToLower(q)
	for _, k := range known {
		lk := strings.ToLower(k)
		for from := 0; ; {
			i := strings.Index(lq[from:], lk)
			if i < 0 {
				break
			}
			i += from
			if wordBounded(lq, i, i+len(lk)) {
				add(value{text: k, kind: kindText, pos: i, end: i + len(lk), known: true})
			}
			from = i + len(lk)
		}
	}
	for _, w := range words(q) {
		s := q[w.pos:w.end]
		switch {
		case isDate(s):
			add(value{text: s, kind: kindText, pos: w.pos, end: w.end})
		case isNumber(s):
			add(value{text: strings.ReplaceAll(s, ",", ""), kind: kindNumber, pos: w.pos, end: w.end})
		case numberWords[strings.ToLower(s)] != "":
			add(value{text: numberWords[strings.ToLower(s)], kind: kindNumber, pos: w.pos, end: w.end})
		}
	}
	for _, v := range capitalisedPhrases(q) {
		add(v)
	}
	sort.Slice(vals, func(i, j int) bool { return vals[i].pos < vals[j].pos })
	return vals
}

// span is a word of a question: letters, digits and the characters that
// join them inside numbers, dates and names (. , - ' between two word
// characters).
type span struct{ pos, end int }

func words(q string) []span {
	var out []span
	start := -1
	for i := 0; i < len(q); {
		r, n := utf8.DecodeRuneInString(q[i:])
		in := isWordRune(r) || start >= 0 && strings.ContainsRune(".,-'’", r) && i+n < len(q) && isWordRuneAt(q, i+n) && isWordRuneBefore(q, i)
		switch {
		case in && start < 0:
			start = i
		case !in && start >= 0:
			out = append(out, span{start, i})
			start = -1
		}
		i += n
	}
	if start >= 0 {
		out = append(out, span{start, len(q)})
	}
	return out
}

func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

func isWordRuneAt(s string, i int) bool {
	r, _ := utf8.DecodeRuneInString(s[i:])
	return isWordRune(r)
}

func isWordRuneBefore(s string, i int) bool {
	if i == 0 {
		return false
	}
	r, _ := utf8.DecodeLastRuneInString(s[:i])
	return isWordRune(r)
}

// wordBounded reports whether s[i:j] neither starts nor ends inside a word.
func wordBounded(s string, i, j int) bool {
	return !isWordRuneBefore(s, i) && (j >= len(s) || !isWordRuneAt(s, j))
}

func isNumber(s string) bool {
	s = strings.ReplaceAll(s, ",", "")
	if s == "" || s[0] < '0' || s[0] > '9' {
		return false
	}
	_, err := strconv.ParseFloat(s, 64)
	return err == nil
}

func isDate(s string) bool {
	if len(s) != 10 || s[4] != '-' || s[7] != '-' {
		return false
	}
	for i, c := range []byte(s) {
		if i != 4 && i != 7 && (c < '0' || c > '9') {
			return false
		}
	}
	return true
}

var quotePairs = []struct{ open, close string }{{`"`, `"`}, {"'", "'"}, {"“", "”"}, {"‘", "’"}}

// quotedPhrases finds quoted phrases. An opening quote must not follow a
// word character and a closing one must not precede one, so the
// apostrophes of "customer's" and "O'Brien" open nothing.
func quotedPhrases(q string) []value {
	var out []value
	for _, p := range quotePairs {
		for from := 0; from < len(q); {
			i := strings.Index(q[from:], p.open)
			if i < 0 {
				break
			}
			i += from
			from = i + len(p.open)
			if isWordRuneBefore(q, i) {
				continue
			}
			body := i + len(p.open)
			for j := body; j < len(q); {
				k := strings.Index(q[j:], p.close)
				if k < 0 {
					break
				}
				k += j
				end := k + len(p.close)
				if end >= len(q) || !isWordRuneAt(q, end) {
					if text := strings.TrimSpace(q[body:k]); text != "" && k-body <= 200 {
						out = append(out, value{text: text, kind: kindOf(text), pos: i, end: end})
						from = end
					}
					break
				}
				j = end
			}
		}
	}
	return out
}

// kindOf says a quoted value is a number when it reads as one.
func kindOf(s string) kind {
	if isNumber(s) {
		return kindNumber
	}
	return kindText
}

// capitalisedPhrases finds runs of words that start with a capital letter
// (or are all digits inside such a run, as in "Route 66"), less the
// question words in front.
func capitalisedPhrases(q string) []value {
	var out []value
	ws := words(q)
	for i := 0; i < len(ws); {
		if !capitalised(q[ws[i].pos:ws[i].end]) {
			i++
			continue
		}
		j := i + 1
		for j < len(ws) && onlySpaceBetween(q, ws[j-1].end, ws[j].pos) && capitalised(q[ws[j].pos:ws[j].end]) {
			j++
		}
		for i < j && notValues[strings.ToLower(q[ws[i].pos:ws[i].end])] {
			i++
		}
		if i < j && !(j-i == 1 && sentenceStart(q, ws[i].pos)) {
			text := q[ws[i].pos:ws[j-1].end]
			out = append(out, value{text: text, kind: kindText, pos: ws[i].pos, end: ws[j-1].end})
		}
		i = j
	}
	return out
}

// sentenceStart reports whether the word at pos begins a sentence, where
// any word is capitalised: only one of several capitalised words there is
// read as a value ("Orders of Maria Garcia" names Maria Garcia, "New York
// customers" names New York).
func sentenceStart(q string, pos int) bool {
	before := strings.TrimRight(q[:pos], " \t\n\"'“‘(")
	return before == "" || strings.ContainsAny(before[len(before)-1:], ".?!:;")
}

func capitalised(w string) bool {
	r, _ := utf8.DecodeRuneInString(w)
	return unicode.IsUpper(r)
}

func onlySpaceBetween(q string, i, j int) bool { return strings.TrimSpace(q[i:j]) == "" && j-i <= 2 }

// KnownValues lists the text values a schema's column samples hold
// (schema.Load with samples > 0), for Options.Values: a question that names
// one of them, in any case, names a value even when it is not capitalised
// ("orders that are shipped"). Values shorter than three characters or
// without a letter are left out, since they would match ordinary words and
// numbers.
func KnownValues(s *sqlgym.Schema) []string {
	seen := map[string]bool{}
	var out []string
	for _, t := range s.Tables {
		for _, c := range t.Columns {
			for _, v := range c.Samples {
				if v.Kind != sqlgym.KindText {
					continue
				}
				text := strings.TrimSpace(v.Str)
				lower := strings.ToLower(text)
				if utf8.RuneCountInString(text) < 3 || len(text) > 100 || strings.IndexFunc(text, unicode.IsLetter) < 0 || notValues[lower] || seen[lower] {
					continue
				}
				seen[lower] = true
				out = append(out, text)
			}
		}
	}
	return out
}
