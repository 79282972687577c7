package failure

import "github.com/sqlgym/sqlgym"

// Class names one kind of failure. Classes are stable strings: they are
// kept in run folders and compared between runs. The type is the domain's
// (a verdict carries it); this package names the classes.
type Class = sqlgym.FailureClass

// Answers that do not run (or never became a query).
const (
	MissingTable    Class = "missing_table"
	MissingColumn   Class = "missing_column"
	MissingFunction Class = "missing_function"
	AmbiguousColumn Class = "ambiguous_column"
	Syntax          Class = "syntax"
	TypeError       Class = "type_error"
	Timeout         Class = "timeout"
	TooLarge        Class = "too_large"
	Forbidden       Class = "forbidden"
	OtherError      Class = "other_error"
	NoQuery         Class = "no_query"
	Truncated       Class = "truncated"
)

// Answers that run and are wrong.
const (
	WrongColumns   Class = "wrong_columns"
	EmptyResult    Class = "empty_result"
	Rounding       Class = "rounding"
	DuplicatedRows Class = "duplicated_rows"
	// MissingDistinct: the gold selects DISTINCT rows and the answer
	// repeats them, a class of its own (Text2SQL-RLVR counted 933 such
	// answers): a capped read that saw only repeats of gold rows is it too.
	MissingDistinct Class = "missing_distinct"
	Ordering        Class = "ordering_or_limit"
	WrongTable      Class = "wrong_table"
	WrongGrain      Class = "wrong_grain"
	FilterDiffers   Class = "filter_differs"
	ExtraRows       Class = "extra_rows"
	MissingRows     Class = "missing_rows"
	WrongValues     Class = "wrong_values"
)

// Classes lists every class in report order: what does not run, then what
// runs and is wrong.
var Classes = []Class{
	MissingTable, MissingColumn, MissingFunction, AmbiguousColumn, Syntax, TypeError, Timeout,
	TooLarge, Forbidden, OtherError, NoQuery, Truncated,
	WrongColumns, EmptyResult, Rounding, MissingDistinct, DuplicatedRows, Ordering, WrongTable, WrongGrain,
	FilterDiffers, ExtraRows, MissingRows, WrongValues,
}

// Runs reports whether answers of class c ran and returned rows.
func Runs(c Class) bool {
	switch c {
	case WrongColumns, EmptyResult, Rounding, MissingDistinct, DuplicatedRows, Ordering, WrongTable, WrongGrain,
		FilterDiffers, ExtraRows, MissingRows, WrongValues:
		return true
	}
	return false
}

// Relation is how the candidate's rows, as a multiset, stand to the gold's.
type Relation = sqlgym.RowRelation

const (
	RelEqual    Relation = "equal"    // same rows, same counts (order or format differs)
	RelSubset   Relation = "subset"   // every candidate row is a gold row: rows missing
	RelSuperset Relation = "superset" // every gold row is a candidate row: rows extra
	RelOverlap  Relation = "overlap"  // some rows in common
	RelDisjoint Relation = "disjoint" // no row in common
)

// Failure is the class of one failed answer and what supports it (the
// domain's type, which a verdict carries).
type Failure = sqlgym.Failure
