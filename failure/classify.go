package failure

import (
	"fmt"
	"slices"
	"strings"

	"github.com/sqlgym/sqlgym"
)

// Input is everything Classify reads about one failed answer.
type Input struct {
	Dialect sqlgym.Dialect
	PredSQL string
	GoldSQL string
	// Pred and Gold are the two results when the candidate ran; Pred may
	// be capped (read up to one row past the gold's count).
	Pred, Gold *sqlgym.ResultSet
	// Err is the candidate's own failure (*sqlgym.ExecError, a timeout or
	// a result past the caps), nil when it ran.
	Err error
	// Outcome is the verdict; no_query and truncated answers have neither
	// rows nor an error.
	Outcome sqlgym.Outcome
}

// Classify gives a failed answer its one class. It never fails: an answer
// nothing more specific fits is wrong_values or other_error.
func Classify(in Input) Failure {
	switch {
	case in.Outcome == sqlgym.OutcomeNoQuery:
		return Failure{Class: NoQuery, Detail: "no SQL found in the reply"}
	case in.Outcome == sqlgym.OutcomeTruncated:
		return Failure{Class: Truncated, Detail: "the reply was cut off by the token limit"}
	case in.Err != nil:
		return fromError(in.Dialect, in.Err)
	case in.Pred == nil || in.Gold == nil:
		return Failure{Class: WrongValues}
	}
	return fromRows(in)
}

// fromRows classifies an answer that ran. The order is from the most
// specific explanation to the least: what the rows alone prove (no rows,
// other columns, the same rows in another order or format, the same rows
// repeated), then what differs in the two queries' structure, then the
// bare row relation. The tables come before the LIMIT: a query of
// another table that also cuts differently is first of all the wrong table.
func fromRows(in Input) Failure {
	p, g := in.Pred, in.Gold
	pr, gr := len(p.Rows), len(g.Rows)
	if pr == 0 && !p.Capped && gr > 0 {
		return Failure{Class: EmptyResult, Detail: fmt.Sprintf("no rows; the gold returns %d", gr)}
	}
	if p.NumCols() != g.NumCols() {
		return Failure{Class: WrongColumns, Detail: fmt.Sprintf("%d columns (%s); the gold returns %d (%s)",
			p.NumCols(), strings.Join(p.Columns, ", "), g.NumCols(), strings.Join(g.Columns, ", "))}
	}
	pb, gb := bagOf(p, false, true), bagOf(g, false, true)
	rel := relation(pb, gb, p.Capped)
	if rel == RelEqual {
		if !bagsEqual(bagOf(p, false, false), bagOf(g, false, false)) {
			return Failure{Class: WrongColumns, Rows: rel, Detail: "the gold's columns in another order"}
		}
		return Failure{Class: Ordering, Rows: rel, Detail: "the gold's rows in another order"}
	}
	if !p.Capped && bagsEqual(bagOf(p, true, true), bagOf(g, true, true)) {
		return Failure{Class: Rounding, Rows: rel, Detail: "equal to the gold up to rounding to 2 decimals, case or number formatting"}
	}
	ps, gs := parseStructure(in.PredSQL), parseStructure(in.GoldSQL)
	if gs.distinct && !ps.distinct {
		switch {
		case setsEqual(pb, gb):
			return Failure{Class: MissingDistinct, Rows: rel, Detail: "missing DISTINCT: the gold selects distinct rows, the answer repeats them"}
		case p.Capped && setSubset(pb, gb) && pr > len(pb):
			// The read stopped one row past the gold's count, before every
			// distinct row came by: only repeats of gold rows were seen.
			return Failure{Class: MissingDistinct, Rows: rel, Detail: fmt.Sprintf(
				"missing DISTINCT: the gold selects %d distinct rows; the answer's first %d rows repeat gold rows (read stopped there)", gr, pr)}
		}
	}
	if setsEqual(pb, gb) {
		f := Failure{Class: DuplicatedRows, Rows: rel}
		switch {
		case pr > gr || p.Capped:
			f.Detail = fmt.Sprintf("join fan-out: the gold's %d distinct rows repeated (%d rows read, the gold has %d)", len(gb), pr, gr)
		default:
			f.Detail = fmt.Sprintf("the gold's %d distinct rows with fewer repeats (%d rows, the gold has %d)", len(gb), pr, gr)
		}
		return f
	}
	if miss := unmatchedColumns(p, g); miss != nil {
		return Failure{Class: WrongColumns, Rows: rel, Detail: "no column holds the gold's " + strings.Join(miss, ", ")}
	}
	if !slices.Equal(ps.tables, gs.tables) {
		return Failure{Class: WrongTable, Rows: rel, Detail: fmt.Sprintf("reads %s; the gold reads %s", list(ps.tables), list(gs.tables))}
	}
	// A cut in another place only explains rows that overlap the gold's.
	if rel != RelDisjoint && ps.limit != gs.limit {
		return Failure{Class: Ordering, Rows: rel, Detail: fmt.Sprintf("LIMIT %s; the gold has LIMIT %s", orNone(ps.limit), orNone(gs.limit))}
	}
	if gs.limit != "" && ps.orderBy != gs.orderBy {
		return Failure{Class: Ordering, Rows: rel, Detail: fmt.Sprintf("ORDER BY %s before the LIMIT; the gold orders by %s", orNone(ps.orderBy), orNone(gs.orderBy))}
	}
	if !slices.Equal(ps.groupBy, gs.groupBy) {
		return Failure{Class: WrongGrain, Rows: rel, Detail: fmt.Sprintf("GROUP BY %s; the gold groups by %s", list(ps.groupBy), list(gs.groupBy))}
	}
	if d := filterDiff(ps, gs); d != "" {
		return Failure{Class: FilterDiffers, Rows: rel, Detail: d}
	}
	if pr == gr && ps.selects != gs.selects {
		return Failure{Class: WrongColumns, Rows: rel, Detail: fmt.Sprintf("selects %s; the gold selects %s", ps.selects, gs.selects)}
	}
	switch rel {
	case RelSubset:
		return Failure{Class: MissingRows, Rows: rel, Detail: fmt.Sprintf("%d of the gold's %d rows, nothing else", pr, gr)}
	case RelSuperset:
		return Failure{Class: ExtraRows, Rows: rel, Detail: fmt.Sprintf("every gold row and more (%d rows read, the gold has %d)", pr, gr)}
	}
	return Failure{Class: WrongValues, Rows: rel, Detail: fmt.Sprintf("%d rows, %s with the gold's %d", pr, rel, gr)}
}

// filterDiff says how the WHERE and HAVING literals or comparisons of the
// two queries differ, or "" when they are the same.
func filterDiff(p, g structure) string {
	pl, gl := sortedCopy(p.literals), sortedCopy(g.literals)
	po, gop := sortedCopy(p.ops), sortedCopy(g.ops)
	switch {
	case !slices.Equal(pl, gl):
		return fmt.Sprintf("filter literals %s; the gold's are %s", list(pl), list(gl))
	case !slices.Equal(po, gop):
		return fmt.Sprintf("comparisons %s; the gold's are %s", list(po), list(gop))
	}
	return ""
}

func sortedCopy(s []string) []string {
	c := slices.Clone(s)
	for i, v := range c {
		c[i] = strings.ToLower(v)
	}
	slices.Sort(c)
	return c
}

func list(s []string) string {
	if len(s) == 0 {
		return "none"
	}
	return strings.Join(s, ", ")
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}
