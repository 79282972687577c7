package sqlgym

// FailureClass names one kind of failed answer. Classes are stable
// strings kept in run folders and compared between runs; package failure
// names them (failure.Class) and finds an answer's.
type FailureClass string

// RowRelation is how an answer's rows, as a multiset, stand to the gold's
// (package failure names the relations).
type RowRelation string

// Failure is the class of one failed answer and what supports it.
type Failure struct {
	Class FailureClass `json:"class"`
	// Detail says in a sentence what differs ("GROUP BY customer_id, gold
	// groups by city").
	Detail string `json:"detail,omitempty"`
	// Rows is the row relation, for answers that ran with the gold's
	// column count.
	Rows RowRelation `json:"rows,omitempty"`
}
