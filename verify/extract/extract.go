package extract

import (
	"strings"

	"github.com/sqlgym/sqlgym/sqltext"
)

// Status says whether a reply held SQL to run.
type Status string

const (
	// StatusOK: SQL was found; Result.SQL is not empty.
	StatusOK Status = "ok"
	// StatusNoQuery: the reply holds no SQL by any rule.
	StatusNoQuery Status = "no_query"
	// StatusTruncated: the reply was cut off by the token limit; what it
	// holds is not run, since a cut-off query is not the model's answer.
	StatusTruncated Status = "truncated"
)

// Methods say which rule found the SQL.
const (
	MethodFenceSQL    = "fence_sql"
	MethodFence       = "fence"
	MethodTagSQL      = "tag:sql"
	MethodTagAnswer   = "tag:answer"
	MethodTagSolution = "tag:solution"
	MethodBare        = "bare"
)

// Result is the SQL found in a reply, and how.
type Result struct {
	SQL    string
	Status Status
	// Method is one of the Method* constants when Status is ok, else "".
	Method string
}

// MaxReplyBytes is the longest reply that is read. A longer one is
// no_query without being read: no answer to a question is a megabyte of
// SQL, and a policy that degenerates into such replies gets the reward of
// an answer without a query. Extraction costs time linear in the reply,
// so this caps the time one reply can take.
const MaxReplyBytes = 1 << 20

// FromCompletion returns the SQL a model's reply answers with.
// finishReason is the API's finish_reason: "length" (or Anthropic's
// "max_tokens") makes the reply truncated whatever it holds. A reply
// longer than MaxReplyBytes is no_query.
func FromCompletion(completion, finishReason string) Result {
	if fr := strings.ToLower(strings.TrimSpace(finishReason)); fr == "length" || fr == "max_tokens" {
		return Result{Status: StatusTruncated}
	}
	if len(completion) > MaxReplyBytes {
		return Result{Status: StatusNoQuery}
	}
	visible := stripReasoning(completion)
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
	if sql, method := fromTags(visible); sql != "" {
		return ok(sql, method)
	}
	if sql := bare(maskFences(visible, blocks)); sql != "" {
		return ok(sql, MethodBare)
	}
	return Result{Status: StatusNoQuery}
}

func ok(sql, method string) Result { return Result{SQL: sql, Status: StatusOK, Method: method} }

// clean trims a found text to its statements: no surrounding white space or
// comments, no trailing semicolons, and no run of three backticks left over
// from a broken fence (such a run is never SQL). It returns "" when no
// statement is left.
func clean(s string) string {
	if strings.Contains(s, "```") {
		s = dropBacktickRuns(s)
	}
	return sqltext.TrimStatement(s)
}

// dropBacktickRuns replaces every run of three or more backticks by a line
// break.
func dropBacktickRuns(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		if n := backtickRun(s[i:]); n >= 3 {
			b.WriteByte('\n')
			i += n
			continue
		}
		b.WriteByte(s[i])
		i++
	}
	return b.String()
}

func backtickRun(s string) int {
	n := 0
	for n < len(s) && s[n] == '`' {
		n++
	}
	return n
}

// asciiLower lower-cases ASCII letters only, so byte offsets into the
// result are offsets into s.
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}
