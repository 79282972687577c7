package compare

import (
	"fmt"

	"github.com/sqlgym/sqlgym"
)

// res builds a result with columns c0..cN-1.
func res(ncols int, rows ...[]sqlgym.Value) *sqlgym.ResultSet {
	cols := make([]string, ncols)
	for i := range cols {
		cols[i] = fmt.Sprintf("c%d", i)
	}
	return &sqlgym.ResultSet{Columns: cols, Rows: rows}
}

func row(vs ...sqlgym.Value) []sqlgym.Value { return vs }

var (
	I = sqlgym.Int
	F = sqlgym.Float
	T = sqlgym.Text
	N = sqlgym.Null
	D = sqlgym.Decimal
)

func negZero() float64 {
	z := 0.0
	return -z
}

// Variables, so the compiler cannot fold 0.1+0.2 into an exact 0.3.
var pointOne, pointTwo = 0.1, 0.2
