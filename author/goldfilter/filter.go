package goldfilter

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/sqltext"
)

// Reason says why a candidate was dropped.
type Reason string

const (
	ReasonError             Reason = "error"              // the gold failed (or timed out) on either run
	ReasonTooFewRows        Reason = "too_few_rows"       // fewer than MinRows (one row of only NULLs counts as none)
	ReasonTooManyRows       Reason = "too_many_rows"      // more than MaxRows
	ReasonUnstable          Reason = "unstable"           // the two runs returned different rows
	ReasonTie               Reason = "tie"                // ORDER BY ... LIMIT cuts through tied sort keys
	ReasonDuplicateSQL      Reason = "duplicate_sql"      // same normalised SQL as a kept task
	ReasonDuplicateQuestion Reason = "duplicate_question" // same normalised question as a kept task
)

// Reasons lists every drop reason in report order.
var Reasons = []Reason{ReasonError, ReasonTooFewRows, ReasonTooManyRows, ReasonUnstable, ReasonTie, ReasonDuplicateSQL, ReasonDuplicateQuestion}

// Filter is the execution filter: each gold runs once on engine A and once
// on engine B, two engines opened separately so the runs share no
// connection, and passes when both succeed, return MinRows to MaxRows rows
// and return the same rows.
type Filter struct {
	A, B    sqlgym.Engine
	MinRows int // default 1
	MaxRows int // default 50
	Limits  sqlgym.Limits
}

// Gold is what the filter needs of a candidate: its SQL and, when set,
// a query returning the sort key of its first TieAt+1 rows in order (the
// filter rejects the gold when the keys at TieAt and TieAt+1 are equal, a
// LIMIT cutting through ties).
type Gold struct {
	SQL    string
	TieSQL string
	TieAt  int
}

// Verdict is the filter's judgement on one candidate: Reason is empty when
// it passes.
type Verdict struct {
	Reason Reason
	Rows   int
	Err    error // the gold's error, for ReasonError
}

// Check runs the gold twice (and its tie check). The error is
// only for an infrastructure failure: the database could not be used,
// which is never the gold's fault.
func (f *Filter) Check(ctx context.Context, c Gold) (Verdict, error) {
	minRows, maxRows := f.MinRows, f.MaxRows
	if minRows <= 0 {
		minRows = 1
	}
	if maxRows <= 0 {
		maxRows = 50
	}
	lim := f.Limits
	lim.StopAfter = maxRows + 1 // no need to read past the first row too many
	first, err := f.A.Query(ctx, c.SQL, lim)
	if err != nil {
		return failed(ctx, err, ReasonError)
	}
	second, err := f.B.Query(ctx, c.SQL, lim)
	if err != nil {
		return failed(ctx, err, ReasonUnstable)
	}
	rows := len(first.Rows)
	switch {
	case first.Capped || rows > maxRows:
		return Verdict{Reason: ReasonTooManyRows, Rows: rows}, nil
	case rows < minRows || rows == 1 && allNull(first.Rows[0]):
		return Verdict{Reason: ReasonTooFewRows, Rows: rows}, nil
	case !sameResult(first, second, sqltext.HasTopLevelOrderBy(c.SQL)):
		return Verdict{Reason: ReasonUnstable, Rows: rows}, nil
	}
	if c.TieSQL != "" && c.TieAt > 0 {
		keys, err := f.A.Query(ctx, c.TieSQL, sqlgym.Limits{Timeout: lim.Timeout, VMSteps: lim.VMSteps, MaxRows: c.TieAt + 2})
		if err != nil {
			return failed(ctx, err, ReasonError)
		}
		if len(keys.Rows) > c.TieAt && rowKey(keys.Rows[c.TieAt-1]) == rowKey(keys.Rows[c.TieAt]) {
			return Verdict{Reason: ReasonTie, Rows: rows}, nil
		}
	}
	return Verdict{Rows: rows}, nil
}

// failed turns a query error into a verdict, or into an error when the
// database itself failed or the run was cancelled.
func failed(ctx context.Context, err error, r Reason) (Verdict, error) {
	if sqlgym.IsInfra(err) {
		return Verdict{}, err
	}
	if ctx.Err() != nil {
		return Verdict{}, ctx.Err()
	}
	var ee *sqlgym.ExecError
	if r == ReasonUnstable && !errors.As(err, &ee) && !errors.Is(err, sqlgym.ErrTimeout) && !errors.Is(err, sqlgym.ErrTooLarge) {
		r = ReasonError
	}
	return Verdict{Reason: r, Err: err}, nil
}

func allNull(row []sqlgym.Value) bool {
	for _, v := range row {
		if !v.IsNull() {
			return false
		}
	}
	return true
}

// sameResult compares two runs exactly: same columns, same rows, in the
// same order when the SQL orders them, else as multisets.
func sameResult(a, b *sqlgym.ResultSet, ordered bool) bool {
	if !slices.Equal(a.Columns, b.Columns) || len(a.Rows) != len(b.Rows) || a.Capped != b.Capped {
		return false
	}
	ka, kb := make([]string, len(a.Rows)), make([]string, len(b.Rows))
	for i := range a.Rows {
		ka[i], kb[i] = rowKey(a.Rows[i]), rowKey(b.Rows[i])
	}
	if !ordered {
		slices.Sort(ka)
		slices.Sort(kb)
	}
	return slices.Equal(ka, kb)
}

// rowKey is an exact text form of a row: kind and value of every cell.
func rowKey(row []sqlgym.Value) string {
	var b strings.Builder
	for _, v := range row {
		fmt.Fprintf(&b, "%d:%d:%v:%q|", v.Kind, v.Int, v.Float, v.Str)
	}
	return b.String()
}
