package screen

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/sqlgym/sqlgym/sqltext"
)

// TieCheck writes the execution filter's tie check for a gold whose top
// level ends in ORDER BY ... LIMIT n (n a literal): a query returning the
// sort keys of the gold's first n+1 rows in order, and n. When rows n and
// n+1 share their keys the LIMIT cuts through a tie and the gold's rows
// depend on the plan (goldfilter.Filter, TieSQL and TieAt). ok is false for
// golds it cannot write that for (no such LIMIT, DISTINCT, a set
// operation).
func TieCheck(sql string) (tieSQL string, at int, ok bool) {
	if sqltext.CountStatements(sql) != 1 {
		return "", 0, false
	}
	q := analyse(strings.TrimRight(strings.TrimSpace(sql), ";"))
	if q.setOp() {
		return "", 0, false
	}
	sel, order, limit := -1, -1, -1
	for k := range q.toks {
		if q.toks[k].depth != 0 {
			continue
		}
		switch {
		case q.word(k, "select") && sel < 0:
			sel = k
		case q.word(k, "order") && q.word(k+1, "by"):
			order = k
		case q.word(k, "limit"):
			limit = k
		}
	}
	if sel < 0 || order < 0 || limit < 0 || limit+2 != len(q.toks) || q.toks[limit+1].Kind != sqltext.Number || q.word(sel+1, "distinct") {
		return "", 0, false
	}
	n, err := strconv.Atoi(q.toks[limit+1].Text)
	if err != nil || n < 1 {
		return "", 0, false
	}
	items := q.selectItems(order)
	aliases := map[string]int{}
	for i, r := range q.split(sel+1, q.clauseEnd(sel, "from")) {
		for k := r[0]; k < r[1]; k++ {
			if q.toks[k].depth == 0 && q.word(k, "as") && k+1 < r[1] {
				aliases[strings.ToLower(unquote(q.toks[k+1].Text))] = i
			}
		}
	}
	var keys []string
	for _, key := range q.split(order+2, limit) {
		a, b := key[0], key[1]
		for b-1 > a && q.word(b-1, "asc", "desc", "last", "first", "nulls") {
			b--
		}
		expr := q.sql[q.toks[a].Pos:q.toks[b-1].End()]
		if b-a == 1 {
			if pos, err := strconv.Atoi(q.toks[a].Text); err == nil && q.toks[a].Kind == sqltext.Number {
				if pos < 1 || pos > len(items) {
					return "", 0, false
				}
				it := items[pos-1]
				expr = q.sql[q.toks[it[0]].Pos:q.toks[it[1]-1].End()]
			} else if i, ok := aliases[strings.ToLower(unquote(q.toks[a].Text))]; ok && i < len(items) {
				it := items[i]
				expr = q.sql[q.toks[it[0]].Pos:q.toks[it[1]-1].End()]
			}
		}
		keys = append(keys, expr)
	}
	if len(keys) == 0 {
		return "", 0, false
	}
	from := q.clauseEnd(sel, "from")
	if from >= len(q.toks) {
		return "", 0, false
	}
	var extra, outer []string
	for i, k := range keys {
		extra = append(extra, fmt.Sprintf("%s AS sg_tie%d", k, i))
		outer = append(outer, fmt.Sprintf("sg_tie%d", i))
	}
	inner := q.sql[:q.toks[from].Pos] + ", " + strings.Join(extra, ", ") + " " + q.sql[q.toks[from].Pos:q.toks[limit+1].Pos] + strconv.Itoa(n+1)
	return "SELECT " + strings.Join(outer, ", ") + " FROM (" + inner + ") AS sg_ties", n, true
}

// Tie is one tie check of a gold: a query returning the sort keys of the
// first At+1 rows of a LIMIT At (see TieCheck).
type Tie struct {
	SQL string
	At  int
}

// NestedTieChecks writes the tie checks of the LIMITs inside a gold's
// subqueries, at any depth: each parenthesised SELECT that ends in ORDER
// BY ... LIMIT n and runs on its own (it names no outer column; a
// correlated one fails to run and the caller drops it). A tie there picks
// one of the tied rows by plan, and the gold's result with it, just as
// at the top level, which TieCheck covers.
func NestedTieChecks(sql string) []Tie {
	toks := sqltext.Tokens(sql)
	var out []Tie
	for i := 0; i+1 < len(toks); i++ {
		if !toks[i].IsPunct("(") || !toks[i+1].IsWord("select") {
			continue
		}
		depth := 0
		for j := i; j < len(toks); j++ {
			switch {
			case toks[j].IsPunct("("):
				depth++
			case toks[j].IsPunct(")"):
				depth--
			}
			if depth == 0 {
				if tie, at, ok := TieCheck(sql[toks[i].End():toks[j].Pos]); ok {
					out = append(out, Tie{SQL: tie, At: at})
				}
				break
			}
		}
	}
	return out
}
