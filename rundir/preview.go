package rundir

// Preview is the first rows of a query's result, as text, kept with a
// failed sample so a report can show what the prediction and the gold
// returned side by side. More is set when rows were cut.
type Preview struct {
	Columns []string   `json:"columns"`
	Rows    [][]string `json:"rows"`
	More    bool       `json:"more,omitempty"`
}
