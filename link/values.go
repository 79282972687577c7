package link

import (
	"context"
	"fmt"
	"strings"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/schema"
)

// DefaultValuesPerColumn bounds how many distinct values of one column
// the value index reads: enough for the categorical columns questions
// name values of (cities, statuses, genres), without reading a free-text
// column of a million rows.
const DefaultValuesPerColumn = 1000

// maxValueTerms is the longest value, in words, the index keeps, and so
// the longest question phrase looked up: longer cells are prose, which
// questions do not quote whole.
const maxValueTerms = 6

// colRef names one column of a schema by position.
type colRef struct{ table, column int }

// valueHit is an indexed value and the columns that hold it.
type valueHit struct {
	text string // one original spelling, for "why"
	cols []colRef
}

// valueIndex maps a normalised value (its stemmed words joined by
// spaces) to the columns holding it. It is an exact n-gram index: a
// question phrase of up to maxValueTerms words finds a value that is
// exactly that phrase, whatever its case and punctuation. Exact phrases
// rather than BM25 over value words, because a linker that adds a table
// for a partial match of a common word ("new", "john") would flood a wide
// schema.
type valueIndex struct {
	byText map[string]*valueHit
	// Columns and Values count what was indexed, for the report.
	Columns, Values int
}

// textual reports whether a column's declared type may hold text. SQLite
// columns may be untyped, so an empty type counts.
func textual(typ string) bool {
	t := strings.ToUpper(typ)
	for _, no := range []string{"INT", "REAL", "FLOA", "DOUB", "NUMERIC", "DECIMAL", "BOOL", "DATE", "TIME", "BLOB", "BYTEA", "SERIAL", "MONEY"} {
		if strings.Contains(t, no) {
			return false
		}
	}
	return true
}

// buildValues reads up to perColumn distinct values of each text column
// through the engine (so under its sandbox and limits) and indexes them.
func buildValues(ctx context.Context, eng sqlgym.Engine, s *sqlgym.Schema, perColumn int) (*valueIndex, error) {
	if perColumn <= 0 {
		perColumn = DefaultValuesPerColumn
	}
	ix := &valueIndex{byText: map[string]*valueHit{}}
	for ti := range s.Tables {
		t := &s.Tables[ti]
		for ci := range t.Columns {
			c := &t.Columns[ci]
			if !textual(c.Type) {
				continue
			}
			q := fmt.Sprintf("SELECT DISTINCT %s FROM %s WHERE %s IS NOT NULL LIMIT %d",
				schema.Quote(c.Name), schema.Quote(t.Name), schema.Quote(c.Name), perColumn)
			rs, err := eng.Query(ctx, q, sqlgym.Limits{MaxRows: perColumn + 1})
			if err != nil {
				if sqlgym.IsInfra(err) || ctx.Err() != nil {
					return nil, fmt.Errorf("values of %s.%s: %w", t.Name, c.Name, err)
				}
				continue // a column the engine cannot read as text is no reason to fail
			}
			ix.Columns++
			for _, row := range rs.Rows {
				if row[0].Kind != sqlgym.KindText {
					continue
				}
				ix.add(row[0].Str, colRef{ti, ci})
			}
		}
	}
	return ix, nil
}

func (ix *valueIndex) add(v string, at colRef) {
	ts := terms(v)
	if len(ts) == 0 || len(ts) > maxValueTerms {
		return
	}
	if len(ts) == 1 && (!isContent(ts[0]) || len(ts[0]) < 3) {
		return // "a", "yes", "no", "12": every question has them
	}
	key := strings.Join(ts, " ")
	h := ix.byText[key]
	if h == nil {
		h = &valueHit{text: v}
		ix.byText[key] = h
	}
	for _, c := range h.cols {
		if c == at {
			return
		}
	}
	h.cols = append(h.cols, at)
	ix.Values++
}

// valueMatch is a question phrase found as a value.
type valueMatch struct {
	phrase string // the value as stored
	col    colRef
	// weight is shared among the columns holding the value: a value in
	// one column says more than one in five.
	weight float64
	words  int
}

// lookup finds the question's phrases among the values, longest first,
// and does not count a phrase inside a longer one already found.
func (ix *valueIndex) lookup(q []string) []valueMatch {
	if ix == nil {
		return nil
	}
	var out []valueMatch
	used := make([]bool, len(q))
	for n := maxValueTerms; n >= 1; n-- {
		for i := 0; i+n <= len(q); i++ {
			free := true
			for j := i; j < i+n; j++ {
				if used[j] {
					free = false
					break
				}
			}
			if !free {
				continue
			}
			h := ix.byText[strings.Join(q[i:i+n], " ")]
			if h == nil {
				continue
			}
			for j := i; j < i+n; j++ {
				used[j] = true
			}
			for _, c := range h.cols {
				out = append(out, valueMatch{phrase: h.text, col: c, weight: 1 / float64(len(h.cols)), words: n})
			}
		}
	}
	return out
}
