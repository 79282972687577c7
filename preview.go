package sqlgym

// Preview is the first rows of a query's result as text (NULL as "NULL"),
// kept with a verdict so a report can show what the answer and the gold
// returned without the database. More is set when the result had rows
// beyond those shown.
type Preview struct {
	Columns []string   `json:"columns"`
	Rows    [][]string `json:"rows"`
	More    bool       `json:"more,omitempty"`
}

// NewPreview keeps the first n rows of rs; nil for a nil result.
func NewPreview(rs *ResultSet, n int) *Preview {
	if rs == nil {
		return nil
	}
	p := &Preview{Columns: append([]string{}, rs.Columns...), Rows: [][]string{}}
	for i, row := range rs.Rows {
		if i == n {
			p.More = true
			break
		}
		cells := make([]string, len(row))
		for j, v := range row {
			cells[j] = v.String()
		}
		p.Rows = append(p.Rows, cells)
	}
	// A capped read stopped early: the statement had more rows than it
	// returned, even when all of those are shown.
	p.More = p.More || rs.Capped
	return p
}
