package duckdb

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"os"
	"strings"

	duck "github.com/duckdb/duckdb-go/v2"
)

// Edit changes an existing DuckDB file that the caller owns (a copy made
// to become a variant database). Each group of trusted statements stands
// or falls together: DuckDB has no savepoints, so every group runs in a
// transaction of its own, and a group with a statement that breaks a
// constraint (NOT NULL, UNIQUE, primary and foreign keys, CHECK: DuckDB
// enforces them all at the statement) is rolled back whole and reported
// false in applied. The groups that applied are committed one by one, and
// the write-ahead log is folded into the file at the end so the variant
// is one file. The error is for a file that cannot be edited at all.
//
// Edit never runs model SQL: its statements come from sqlgym itself.
func Edit(ctx context.Context, path string, groups [][]string) (applied []bool, err error) {
	if _, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("edit duckdb database %s: %w", path, err)
	}
	if strings.ContainsAny(path, "?#%") {
		return nil, fmt.Errorf("edit duckdb database %s: the path contains '?', '#' or '%%', which the DuckDB driver cannot take", path)
	}
	settings := url.Values{}
	settings.Set("enable_external_access", "false")
	settings.Set("autoinstall_known_extensions", "false")
	settings.Set("autoload_known_extensions", "false")
	// One thread: the statements pick rows by key order and must give the
	// same file from the same list every time.
	settings.Set("threads", "1")
	c, err := duck.NewConnector(path+"?"+settings.Encode(), nil)
	if err != nil {
		return nil, fmt.Errorf("edit duckdb database %s: %w", path, err)
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
	for i, g := range groups {
		ok, err := editGroup(ctx, conn, g)
		if err != nil {
			return nil, fmt.Errorf("edit duckdb database %s: group %d: %w", path, i+1, err)
		}
		applied[i] = ok
	}
	if _, err := conn.ExecContext(ctx, "CHECKPOINT"); err != nil {
		return nil, fmt.Errorf("edit duckdb database %s: checkpoint: %w", path, err)
	}
	return applied, nil
}

// editGroup runs one group in its own transaction: false when a statement
// failed and the group was rolled back, an error when the transaction
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
