package screen

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/engine/sqlite"
	"github.com/sqlgym/sqlgym/internal/memo"
)

// boundaryRow is the question a flipped-bound proof asks SQLite: in a
// table of one column declared like the gold's, holding the literal as
// SQLite stores it there, is that row the one the gold's and the mutant's
// comparisons disagree on, and which of the other conditions is not true
// on it? Asking the engine, not re-implementing it, keeps type affinity,
// date functions and text comparison exactly as the gold will meet them.
type boundaryRow struct {
	Table, Alias, Column, Decl string // Alias: "" when the gold uses the table's own name
	Literal                    string // one String or Number token, as written
	Gold, Mutant               string // the two comparisons' texts
	Others                     []string
}

func (b boundaryRow) key() string {
	return strings.Join(append([]string{b.Table, b.Alias, b.Column, b.Decl, b.Literal, b.Gold, b.Mutant}, b.Others...), "\x00")
}

// boundaryVerdict: Refuter is the index in Others of the first condition
// not true on the row, -1 when every one that runs is true.
type boundaryVerdict struct {
	Refuter int
}

// boundaryTimeout bounds one evaluation; it runs a few one-row queries.
const boundaryTimeout = 30 * time.Second

var boundaries memo.Map[string, boundaryVerdict]

// declType accepts a declared type that can be pasted into a CREATE TABLE
// as a type name and nothing more: words, then at most one parenthesised
// list of numbers (VARCHAR(50), DECIMAL(10,2), UNSIGNED BIG INT).
var declType = regexp.MustCompile(`^([A-Za-z_][A-Za-z0-9_]*( +[A-Za-z_][A-Za-z0-9_]*)*( *\( *[+-]?[0-9]+ *(, *[+-]?[0-9]+ *)?\))?)?$`)

// errNotBoundary says the literal's row is not where the two comparisons
// disagree: the proof's premise does not hold, so nothing is claimed.
var errNotBoundary = errors.New("the literal's row does not tell the comparisons apart")

// refute runs the question on a fresh SQLite file (the project's own
// engine, sandboxed, on a temporary copy of one row), once per distinct
// question in the process. An error means not proved.
func (b boundaryRow) refute() (boundaryVerdict, error) {
	ctx, cancel := context.WithTimeout(context.Background(), boundaryTimeout)
	defer cancel()
	return boundaries.Do(ctx, b.key(), func() (boundaryVerdict, error) {
		ctx, cancel := context.WithTimeout(context.Background(), boundaryTimeout)
		defer cancel()
		return b.run(ctx)
	}, func(_ boundaryVerdict, err error) bool { return err == nil || errors.Is(err, errNotBoundary) })
}

func (b boundaryRow) run(ctx context.Context) (boundaryVerdict, error) {
	none := boundaryVerdict{Refuter: -1}
	if !declType.MatchString(b.Decl) {
		return none, fmt.Errorf("declared type %q: %w", b.Decl, errNotBoundary)
	}
	dir, err := os.MkdirTemp("", "sqlgym-boundary-")
	if err != nil {
		return none, fmt.Errorf("boundary database: %w", err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "row.sqlite")
	table := quoteIdent(b.Table)
	err = sqlite.Create(ctx, path, []string{
		fmt.Sprintf("CREATE TABLE %s (%s %s)", table, quoteIdent(b.Column), b.Decl),
		fmt.Sprintf("INSERT INTO %s VALUES (%s)", table, b.Literal),
	})
	if err != nil {
		return none, fmt.Errorf("boundary database: %w", err)
	}
	eng, err := sqlite.Open(path, sqlite.Options{PoolSize: 1})
	if err != nil {
		return none, fmt.Errorf("boundary database: %w", err)
	}
	defer eng.Close()
	from := table
	if b.Alias != "" {
		from += " AS " + quoteIdent(b.Alias)
	}
	lim := sqlgym.Limits{MaxRows: 2}
	// The row must be the one the comparisons disagree on.
	col := quoteIdent(b.Column)
	rs, err := eng.Query(ctx, fmt.Sprintf("SELECT (%s) IS NOT (%s), typeof(%s) = 'real' AND %s = 0 FROM %s",
		b.Gold, b.Mutant, col, col, from), lim)
	if err != nil {
		return none, fmt.Errorf("boundary row: %w", err)
	}
	if len(rs.Rows) != 1 || rs.Rows[0][0].Kind != sqlgym.KindInt || rs.Rows[0][0].Int != 1 {
		return none, errNotBoundary
	}
	if rs.Rows[0][1].Int != 0 {
		return none, fmt.Errorf("a REAL zero has two signs: %w", errNotBoundary)
	}
	for i, o := range b.Others {
		// CASE WHEN decides truth exactly as WHERE does: NULL and 0 are
		// not true.
		rs, err := eng.Query(ctx, fmt.Sprintf("SELECT CASE WHEN (%s) THEN 1 ELSE 0 END FROM %s", o, from), lim)
		if err != nil {
			if sqlgym.IsInfra(err) {
				return none, fmt.Errorf("boundary condition: %w", err)
			}
			continue // it reads another column (or cannot run here): it proves nothing
		}
		if len(rs.Rows) == 1 && rs.Rows[0][0].Kind == sqlgym.KindInt && rs.Rows[0][0].Int == 0 {
			return boundaryVerdict{Refuter: i}, nil
		}
	}
	return none, nil
}

func quoteIdent(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }
