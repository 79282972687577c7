package baseline

import (
	"math"
	"strings"
	"unicode"
)

// BM25 parameters: the usual k1 and b from the literature's defaults.
const (
	defaultK1 = 1.2
	defaultB  = 0.75
)

// bm25 is an Okapi BM25 index over a small corpus of short documents (the
// training questions of one database). Documents are kept as term counts;
// with a few hundred questions per database a scan of every document per
// query costs microseconds, so there is no inverted index.
type bm25 struct {
	k1, b  float64
	docs   []map[string]int
	lens   []int
	avgLen float64
	df     map[string]int
}

func newBM25(docs [][]string, k1, b float64) *bm25 {
	ix := &bm25{k1: k1, b: b, df: map[string]int{}}
	total := 0
	for _, terms := range docs {
		tf := map[string]int{}
		for _, t := range terms {
			tf[t]++
		}
		for t := range tf {
			ix.df[t]++
		}
		ix.docs = append(ix.docs, tf)
		ix.lens = append(ix.lens, len(terms))
		total += len(terms)
	}
	if len(docs) > 0 {
		ix.avgLen = float64(total) / float64(len(docs))
	}
	return ix
}

// idf is the BM25 inverse document frequency in its non-negative form,
// ln(1 + (N - n + 0.5) / (n + 0.5)): a term in every document still counts
// a little instead of subtracting from the score.
func (ix *bm25) idf(term string) float64 {
	n := float64(ix.df[term])
	N := float64(len(ix.docs))
	return math.Log(1 + (N-n+0.5)/(n+0.5))
}

// score is document d's BM25 score for the query terms. Each distinct query
// term counts once: a question that repeats a word is not asking for it
// more.
func (ix *bm25) score(query []string, d int) float64 {
	tf := ix.docs[d]
	norm := 1.0
	if ix.avgLen > 0 {
		norm = 1 - ix.b + ix.b*float64(ix.lens[d])/ix.avgLen
	}
	s := 0.0
	seen := make(map[string]bool, len(query))
	for _, t := range query {
		if seen[t] {
			continue
		}
		seen[t] = true
		f := float64(tf[t])
		if f == 0 {
			continue
		}
		s += ix.idf(t) * f * (ix.k1 + 1) / (f + ix.k1*norm)
	}
	return s
}

// terms splits a question into lower-case words of letters and digits.
// Values the question names (numbers, quoted and capitalised phrases, known
// database values) are replaced by a placeholder of their kind, so that
// retrieval matches the shape of a question ("customers from <text>")
// rather than the particular value, which adaptation puts back anyway.
func terms(question string, vals []value) []string {
	var out []string
	pos := 0
	emit := func(s string) {
		for _, w := range strings.FieldsFunc(s, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
			out = append(out, strings.ToLower(w))
		}
	}
	for _, v := range vals {
		if v.pos < pos {
			continue
		}
		emit(question[pos:v.pos])
		out = append(out, placeholder[v.kind])
		pos = v.end
	}
	emit(question[pos:])
	return out
}

var placeholder = map[kind]string{kindNumber: "<number>", kindText: "<text>"}
