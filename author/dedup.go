package author

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strings"
	"unicode"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/author/goldfilter"
	"github.com/sqlgym/sqlgym/sqltext"
)

// Dedup remembers the normalised SQL and questions of kept tasks.
type Dedup struct {
	sql, question map[string]bool
}

// NewDedup returns an empty Dedup.
func NewDedup() *Dedup { return &Dedup{sql: map[string]bool{}, question: map[string]bool{}} }

// Seen returns the reason a task with this SQL and question would be a
// duplicate of a kept one, or "".
func (d *Dedup) Seen(sql, question string) goldfilter.Reason {
	if d.sql[sqltext.Normalize(sql)] {
		return goldfilter.ReasonDuplicateSQL
	}
	if d.question[NormalizeQuestion(question)] {
		return goldfilter.ReasonDuplicateQuestion
	}
	return ""
}

// Add records a kept task.
func (d *Dedup) Add(sql, question string) {
	d.sql[sqltext.Normalize(sql)] = true
	d.question[NormalizeQuestion(question)] = true
}

// NormalizeQuestion lower-cases a question and collapses every run of
// spaces and punctuation into one space, so "How many orders?" and "how
// many  orders" are the same question.
func NormalizeQuestion(q string) string {
	var b strings.Builder
	gap := false
	for _, r := range strings.ToLower(q) {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			if gap && b.Len() > 0 {
				b.WriteByte(' ')
			}
			gap = false
			b.WriteRune(r)
			continue
		}
		gap = true
	}
	return b.String()
}

// TaskID is "<db>_<complexity>_<first 8 hex digits of sha256 of the
// normalised SQL>": the same gold always gets the same id, so a rerun with
// the same seed never renumbers tasks.
func TaskID(db, complexity, sql string) string {
	sum := sha256.Sum256([]byte(sqltext.Normalize(sql)))
	return db + "_" + complexity + "_" + hex.EncodeToString(sum[:4])
}

// NewTask makes the task for a kept candidate.
func NewTask(db string, c Candidate) sqlgym.Task {
	t := sqlgym.Task{ID: TaskID(db, c.Complexity, c.SQL), DB: db, Question: c.Question, SQL: c.SQL, Complexity: c.Complexity, Source: c.Source,
		GoldByDialect: c.GoldByDialect}
	if c.Dialect != "" {
		t.Extra = map[string]json.RawMessage{"dialect": json.RawMessage(`"` + string(c.Dialect) + `"`)}
	}
	return t
}
