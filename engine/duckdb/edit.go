package duckdb

import (
	"context"
	"database/sql"
	"fmt"
	"os"
)

// Edit changes an existing DuckDB file that the caller owns (a copy made
// to become a variant database). Each group of trusted statements stands
// or falls together: DuckDB has no savepoints, so every group runs in a
// transaction of its own, and a group with a statement that breaks a
// constraint (NOT NULL, UNIQUE, primary and foreign keys, CHECK: DuckDB
// enforces them all at the statement) is rolled back whole and reported
// false in applied. The write-ahead log is folded into the file at the end
// so the variant is one file. The error is for a file that cannot be
// edited at all.
//
// A commit costs a write to the log each, which made one transaction per
// group the larger part of a candidate's cost; so a run of groups is
// first tried in one transaction, and only a run that fails is halved
// until the failing groups stand alone. Each group still sees exactly the
// groups before it that applied, as it would one by one: a run commits
// only when every group in it succeeded in order.
//
// Edit never runs model SQL: its statements come from sqlgym itself.
func Edit(ctx context.Context, path string, groups [][]string) (applied []bool, err error) {
	if _, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("edit duckdb database %s: %w", path, err)
	}
	c, err := writer("edit", path)
	if err != nil {
		return nil, err
	}
	db := sql.OpenDB(c)
	defer func() {
		if cerr := db.Close(); cerr != nil && err == nil {
			err = fmt.Errorf("edit duckdb database %s: close: %w", path, cerr)
		}
	}()
	db.SetMaxOpenConns(1)
	conn, err := db.Conn(ctx)
	if err != nil {
		return nil, fmt.Errorf("edit duckdb database %s: %w", path, err)
	}
	defer conn.Close()
	applied = make([]bool, len(groups))
	var run func(lo, hi int) error
	run = func(lo, hi int) error {
		if lo >= hi {
			return nil
		}
		var stmts []string
		for _, g := range groups[lo:hi] {
			stmts = append(stmts, g...)
		}
		ok, err := editGroup(ctx, conn, stmts)
		if err != nil {
			return fmt.Errorf("groups %d to %d: %w", lo+1, hi, err)
		}
		if ok {
			for i := lo; i < hi; i++ {
				applied[i] = true
			}
			return nil
		}
		if hi-lo == 1 {
			return nil
		}
		mid := (lo + hi) / 2
		if err := run(lo, mid); err != nil {
			return err
		}
		return run(mid, hi)
	}
	if err := run(0, len(groups)); err != nil {
		return nil, fmt.Errorf("edit duckdb database %s: %w", path, err)
	}
	if _, err := conn.ExecContext(ctx, "CHECKPOINT"); err != nil {
		return nil, fmt.Errorf("edit duckdb database %s: checkpoint: %w", path, err)
	}
	return applied, nil
}

// editGroup runs statements in one transaction: false when a statement
// failed and the transaction was rolled back, an error when the transaction
// itself could not be run.
func editGroup(ctx context.Context, conn *sql.Conn, stmts []string) (bool, error) {
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return false, err
	}
	for _, s := range stmts {
		if _, err := tx.ExecContext(ctx, s); err != nil {
			if cerr := ctx.Err(); cerr != nil {
				tx.Rollback()
				return false, cerr
			}
			if rerr := tx.Rollback(); rerr != nil {
				return false, fmt.Errorf("roll back: %w", rerr)
			}
			return false, nil
		}
	}
	if err := tx.Commit(); err != nil {
		// A constraint DuckDB checks at commit fails the group, not the edit.
		return false, nil
	}
	return true, nil
}

// SeparateInstances reports whether two engines on one file may differ in
// their settings (Threads, MemoryLimit): true where engines run in worker
// processes, each its own DuckDB instance; in-process, DuckDB refuses a
// second configuration of a file it has open.
func SeparateInstances() bool { return workersSupported }
