package postgres

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/sqlgym/sqlgym"
)

// maxConstLength bounds the strings a statement may build from constants
// with repeat, lpad and rpad (nested calls multiply). Some server
// functions never check for a cancel: LIKE on a long subject with a long
// pattern does subject x pattern character comparisons in one call
// (repeat('a', 100000) LIKE '%' || repeat('a', 10000) || 'b' takes 4 s
// and ignores statement_timeout, pg_cancel_backend and
// pg_terminate_backend alike). With both strings at most 10,000
// characters such a call ends in well under a second. Strings built from
// rows (string_agg over generate_series) are not seen here; see
// docs/sandbox-postgres.md.
const maxConstLength = 10_000

// sizedFuncs are the functions whose argument at the given index is the
// length of the string they build.
var sizedFuncs = map[string]int{"repeat": 1, "lpad": 1, "rpad": 1}

type sizedCall struct {
	name       string
	start, end int     // token span, the name through the closing ')'
	length     float64 // the constant length argument, 1 when not constant
}

// refuseHugeStrings refuses a statement that builds, from constants, a
// string longer than maxConstLength.
func refuseHugeStrings(toks []token) error {
	var calls []sizedCall
	for i := 0; i+1 < len(toks); i++ {
		t := toks[i]
		// "repeat"(...) calls the same function: a quoted name counts.
		argIdx, ok := sizedFuncs[t.text]
		if t.kind != tokWord && t.kind != tokQuotedIdent || !ok || toks[i+1].kind != tokLParen {
			continue
		}
		end, arg := callArg(toks, i+1, argIdx)
		calls = append(calls, sizedCall{name: t.text, start: i, end: end, length: constNumber(arg)})
	}
	for _, c := range calls {
		total := 1.0
		for _, outer := range calls {
			if outer.start <= c.start && c.end <= outer.end {
				total *= outer.length
			}
		}
		if total > maxConstLength {
			return fmt.Errorf("%w: %s builds a string of %.0f characters from constants; the sandbox allows at most %d",
				sqlgym.ErrTooLarge, c.name, total, maxConstLength)
		}
	}
	return nil
}

// callArg returns the index of the ')' closing the call whose '(' is at
// open, and the tokens of its argument number idx.
func callArg(toks []token, open, idx int) (int, []token) {
	depth, arg, from := 0, 0, open+1
	var found []token
	for j := open; j < len(toks); j++ {
		switch {
		case toks[j].kind == tokLParen:
			depth++
		case toks[j].kind == tokRParen:
			depth--
			if depth == 0 {
				if arg == idx {
					found = toks[from:j]
				}
				return j, found
			}
		case depth == 1 && toks[j].kind == tokOther && toks[j].text == ",":
			if arg == idx {
				found = toks[from:j]
			}
			arg++
			from = j + 1
		}
	}
	return len(toks) - 1, found
}

// constNumber is an upper bound of an argument made only of numeric
// constants and arithmetic (the product of its numbers: 1000*1000, 1e6,
// 10000::int), or 1 when it depends on anything else. A power (10^5) or a
// string constant ('100000', which the server casts to the count) has no
// such bound from its tokens: +Inf, refused.
func constNumber(arg []token) float64 {
	if len(arg) == 0 {
		return 1
	}
	v := 1.0
	for k, t := range arg {
		switch t.kind {
		case tokOther:
			if n, err := strconv.ParseFloat(t.text, 64); err == nil {
				v *= max(n, 1)
			} else if strings.Contains(t.text, "^") {
				return math.Inf(1)
			} else if !strings.Contains("+-*/%:.", t.text) {
				return 1
			}
		case tokWord:
			// A cast's type name: 1e6::int.
			if k < 2 || arg[k-1].text != ":" || arg[k-2].text != ":" {
				return 1
			}
		case tokLParen, tokRParen:
		case tokString:
			return math.Inf(1)
		default:
			return 1
		}
	}
	return v
}
