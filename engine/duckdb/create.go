package duckdb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
)

// Create builds a new DuckDB database file at path from portable SQL
// statements (DDL and INSERTs), in one transaction. It refuses a path that
// already exists, and removes what it made when a statement fails. The
// statements are trusted (fixtures, converted schemas) but still run
// without file or network access or extension loading.
func Create(ctx context.Context, path string, stmts []string) (err error) {
	if _, err := os.Stat(path); err == nil {
		return fmt.Errorf("create duckdb database %s: the file already exists", path)
	} else if !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("create duckdb database %s: %w", path, err)
	}
	c, err := writer("create", path)
	if err != nil {
		return err
	}
	db := sql.OpenDB(c)
	defer func() {
		if cerr := db.Close(); cerr != nil && err == nil {
			err = fmt.Errorf("create duckdb database %s: close: %w", path, cerr)
		}
		if err != nil {
			os.Remove(path)
			os.Remove(path + ".wal")
		}
	}()
	db.SetMaxOpenConns(1)
	conn, err := db.Conn(ctx)
	if err != nil {
		return fmt.Errorf("create duckdb database %s: %w", path, err)
	}
	defer conn.Close()
	// Merged INSERTs can fail where the single ones would not (a VALUES
	// list unifies its rows' types), so a failure is retried statement by
	// statement; DuckDB's DDL is transactional, so the rollback undoes all.
	if err := runBatches(ctx, conn, mergeInserts(stmts)); err != nil {
		if err := runBatches(ctx, conn, singles(stmts)); err != nil {
			return fmt.Errorf("create duckdb database %s: %w", path, err)
		}
	}
	// Fold the write-ahead log into the file so the database is one file.
	if _, err := conn.ExecContext(ctx, "CHECKPOINT"); err != nil {
		return fmt.Errorf("create duckdb database %s: checkpoint: %w", path, err)
	}
	return nil
}

// runBatches runs the batches in one transaction, committing only if all
// succeed.
func runBatches(ctx context.Context, conn *sql.Conn, batches []batch) error {
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	for _, b := range batches {
		if _, err := tx.ExecContext(ctx, b.sql); err != nil {
			tx.Rollback()
			return fmt.Errorf("%s: %w", b.where(), err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	return nil
}

func singles(stmts []string) []batch {
	out := make([]batch, len(stmts))
	for i, s := range stmts {
		out[i] = batch{sql: s, first: i, last: i}
	}
	return out
}
