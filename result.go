package sqlgym

// ResultSet is what one statement returned.
type ResultSet struct {
	Columns []string
	Rows    [][]Value
	// Capped is true when reading stopped early at Limits.StopAfter: the
	// statement has more rows than Rows holds. A capped result can still be
	// judged by rules that only need to know it is longer than the gold.
	Capped bool
	// Bytes is the approximate size of Rows, as counted against MaxBytes.
	Bytes int64
}

// NumCols is the number of columns, even when there are no rows.
func (r *ResultSet) NumCols() int { return len(r.Columns) }
