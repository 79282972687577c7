package author

import (
	"context"
	"math/rand/v2"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/author/goldfilter"
)

// Complexity levels a task can be written at.
const (
	LevelFilter     = "filter"      // a single-table filter
	LevelJoin       = "join"        // a join along a foreign key
	LevelAggregate  = "aggregate"   // COUNT/SUM/AVG/MIN/MAX over a set
	LevelGroupBy    = "group_by"    // GROUP BY, HAVING
	LevelOrderLimit = "order_limit" // ORDER BY ... LIMIT
	LevelSubquery   = "subquery"    // a subquery or a CTE
	LevelDate       = "date"        // date logic
	LevelWindow     = "window"      // a window function
)

// Levels lists the complexity levels in report order.
var Levels = []string{LevelFilter, LevelJoin, LevelAggregate, LevelGroupBy, LevelOrderLimit, LevelSubquery, LevelDate, LevelWindow}

// SourceSynth is the source recorded on tasks the synth teacher wrote.
// Model-backed teachers record "teacher:PROVIDER:MODEL".
const SourceSynth = "synth"

// Candidate is a proposed task: a question and the gold SQL that answers it.
type Candidate struct {
	Question   string
	SQL        string
	Complexity string
	Source     string
	// Dialect is set when the gold uses functions only one engine has
	// (SQLite's strftime, julianday); empty means portable SQL.
	Dialect sqlgym.Dialect
	// GoldByDialect holds the gold's text for the other engines, where it
	// differs (see gen.forEngines); it becomes Task.GoldByDialect.
	GoldByDialect map[sqlgym.Dialect]string
	// TieSQL, when set, returns the sort key of the gold's first TieAt+1
	// rows in order. The filter rejects the candidate when the keys of rows
	// TieAt and TieAt+1 are equal: the LIMIT would cut through a tie and the
	// question would have several right answers.
	TieSQL string
	TieAt  int
}

// gold is the part of the candidate the execution filter checks.
func (c Candidate) gold() goldfilter.Gold {
	return goldfilter.Gold{SQL: c.SQL, TieSQL: c.TieSQL, TieAt: c.TieAt}
}

// Teacher proposes candidate tasks for a database. Propose returns up to n
// candidates; the same rng state must give the same candidates, so that a
// seed reproduces a task set. It may return fewer than n, or none when it
// has nothing left to propose.
type Teacher interface {
	Propose(ctx context.Context, s *sqlgym.Schema, n int, rng *rand.Rand) ([]Candidate, error)
}
