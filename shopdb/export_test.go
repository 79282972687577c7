package shopdb

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
)

// SQL returns shop.sql whole: a comment header, the DDL, then the rows.
func SQL() string { return shopSQL }

// Load creates the shop tables in db and fills them, in one transaction.
// db must be empty of these tables; on PostgreSQL the tables land in the
// connection's search_path.
func Load(ctx context.Context, db *sql.DB) (err error) {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("load shop: %w", err)
	}
	defer func() {
		if err != nil {
			_ = tx.Rollback()
		}
	}()
	for _, st := range statements() {
		if _, err := tx.ExecContext(ctx, st); err != nil {
			return fmt.Errorf("load shop: %s: %w", firstWords(st), err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("load shop: commit: %w", err)
	}
	return nil
}

// firstWords names a statement in an error without quoting all its rows.
func firstWords(st string) string {
	line, _, _ := strings.Cut(st, "\n")
	if len(line) > 60 {
		line = line[:60] + "..."
	}
	return line
}

// Tables returns the eight tables in creation (foreign-key) order. The
// slices are the caller's.
func Tables() []Table {
	ts := tables()
	out := make([]Table, len(ts))
	for i, t := range ts {
		out[i] = t
		out[i].Columns = append([]Column(nil), t.Columns...)
	}
	return out
}
