package variants

import (
	"strings"

	"github.com/sqlgym/sqlgym/sqltext"
)

// antiJoined returns the columns (lower-cased names, any table) that a
// gold reads as the list of a NOT IN subquery: x NOT IN (SELECT
// [DISTINCT] [t.]col ...). A NULL there empties that gold's result, so the
// gold's author took the column to hold none: a column the data leaves
// NULL-free gets no NULL on that account, even where its declaration
// allows one (constraints.Set.OptionalReference). An answer's NOT IN over
// the same column is still caught where the gold reads it otherwise.
func antiJoined(golds []string) map[string]bool {
	out := map[string]bool{}
	for _, g := range golds {
		var toks []sqltext.Token
		for _, t := range sqltext.Tokens(g) {
			if t.Significant() {
				toks = append(toks, t)
			}
		}
		for i := 0; i+4 < len(toks); i++ {
			if !toks[i].IsWord("not") || !toks[i+1].IsWord("in") || !toks[i+2].IsPunct("(") || !toks[i+3].IsWord("select") {
				continue
			}
			k := i + 4
			if toks[k].IsWord("distinct") {
				k++
			}
			if k+2 < len(toks) && toks[k+1].IsPunct(".") {
				k += 2
			}
			if k < len(toks) && (toks[k].Kind == sqltext.Word || toks[k].Kind == sqltext.QuotedIdent) {
				out[strings.ToLower(strings.Trim(toks[k].Text, "\"`[]"))] = true
			}
		}
	}
	return out
}
