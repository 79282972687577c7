package variants

import (
	"context"
	"fmt"
	"strings"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/constraints"
	"github.com/sqlgym/sqlgym/sqltext"
)

// A NULL in a foreign key that may be NULL, where the original holds
// none, is what catches an anti-join written with NOT IN over that column
// ("stadiums without a concert in 2014" as stadium_id NOT IN (SELECT
// stadium_id FROM concert ...)): one concert of unknown stadium empties
// it, while the gold's EXCEPT still answers. No mutant of the task's own
// screen makes that rewrite, so a variant holding such a NULL is seldom
// the first killer of one of its mutants, and narrowing the task to its
// killers (taskVariants) dropped those catches: on Spider's keyed copy 24
// answers judged wrong, of 26 flips, none judged right. A task whose gold
// reads such a column (names its table and the column) keeps the fair
// variants that hold the NULL beside its killers; pertask.go has already
// left out those on which the gold's own NOT IN is emptied.

// nullKey is a single-column foreign key, lower case.
type nullKey struct{ table, column string }

// nullKeys lists, for each variant URL, the single-column foreign keys
// (declared or implied) that hold a NULL on it and none on the original.
func nullKeys(ctx context.Context, orig string, urls []string, fks []constraints.ForeignKey) ([][]nullKey, error) {
	var cols []nullKey
	for _, f := range fks {
		if len(f.Columns) == 1 {
			cols = append(cols, nullKey{f.Table, f.Columns[0]})
		}
	}
	out := make([][]nullKey, len(urls))
	if len(cols) == 0 {
		return out, nil
	}
	before, err := nullColumns(ctx, orig, cols)
	if err != nil {
		return nil, err
	}
	for i, u := range urls {
		on, err := nullColumns(ctx, u, cols)
		if err != nil {
			return nil, err
		}
		for j, c := range cols {
			if on[j] && !before[j] {
				out[i] = append(out[i], nullKey{strings.ToLower(c.table), strings.ToLower(c.column)})
			}
		}
	}
	return out, nil
}

// nullColumns says, for each column, whether the database at url holds a
// NULL in it.
func nullColumns(ctx context.Context, url string, cols []nullKey) ([]bool, error) {
	eng, err := openCandidate(ctx, url)
	if err != nil {
		return nil, fmt.Errorf("NULL keys: open %s: %w (hint: the variant file was written just before)", url, err)
	}
	defer eng.Close()
	out := make([]bool, len(cols))
	for i, c := range cols {
		q := fmt.Sprintf("SELECT 1 FROM %s WHERE %s IS NULL LIMIT 1", quoteIdent(c.table), quoteIdent(c.column))
		rs, err := eng.Query(ctx, q, sqlgym.Limits{MaxRows: 1})
		if err != nil {
			if sqlgym.IsInfra(err) {
				return nil, fmt.Errorf("NULL keys: %s.%s: %w", c.table, c.column, err)
			}
			continue // a column the engine cannot read is no NULL to count
		}
		out[i] = len(rs.Rows) > 0
	}
	return out, nil
}

// readsKey reports whether one of the task's golds names both the table
// and the column of one of keys.
func readsKey(golds []string, keys []nullKey) bool {
	if len(keys) == 0 {
		return false
	}
	for _, g := range golds {
		words := map[string]bool{}
		for _, t := range sqltext.Tokens(g) {
			if t.Kind == sqltext.Word || t.Kind == sqltext.QuotedIdent {
				words[strings.ToLower(strings.Trim(t.Text, "\"`[]"))] = true
			}
		}
		for _, k := range keys {
			if words[k.table] && words[k.column] {
				return true
			}
		}
	}
	return false
}
