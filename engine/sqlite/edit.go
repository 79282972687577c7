package sqlite

import (
	"context"
	"fmt"
	"net/url"
	"path/filepath"
)

// Edit changes an existing SQLite file that the caller owns (a copy made
// to become a variant database): it runs each trusted statement in its
// own savepoint, with foreign keys enforced, and keeps the ones that
// succeed. A statement that breaks a constraint (NOT NULL, UNIQUE, CHECK,
// a foreign key) is rolled back alone and reported false in applied; the
// others commit together. The error is for a file that cannot be edited
// at all.
//
// Edit never runs model SQL: its statements come from sqlgym itself.
func Edit(ctx context.Context, path string, stmts []string) (applied []bool, err error) {
	return EditGuarded(ctx, path, nil, stmts)
}

// EditGuarded is Edit with guards: statements run first on the editing
// connection, before any of stmts, each of which must succeed. They are
// meant for TEMP triggers that RAISE(ABORT) on a row breaking a
// constraint the file does not declare (an implied key): such a trigger
// lives in the connection's temp schema, so it refuses the statements
// that break it and leaves the file's schema as it was.
func EditGuarded(ctx context.Context, path string, guards, stmts []string) (applied []bool, err error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("edit sqlite database %s: %w", path, err)
	}
	c, err := openDB(uriOf(abs, url.Values{"mode": {"rw"}}), openReadWrite|openURI|openNoMutex, false)
	if err != nil {
		return nil, fmt.Errorf("edit sqlite database %s: %w", path, err)
	}
	defer func() {
		if cerr := c.close(); err == nil && cerr != nil {
			err = fmt.Errorf("edit sqlite database %s: close: %w", path, cerr)
		}
	}()
	stop := c.interruptOn(ctx)
	defer stop()
	// Enforced here so that a row pointing nowhere fails its own
	// statement; the pragma only takes outside a transaction.
	if err := c.exec(`PRAGMA foreign_keys = ON`); err != nil {
		return nil, fmt.Errorf("edit sqlite database %s: %w", path, err)
	}
	for _, g := range guards {
		if err := c.exec(g); err != nil {
			return nil, fmt.Errorf("edit sqlite database %s: guard: %w", path, err)
		}
	}
	if err := c.exec(`BEGIN`); err != nil {
		return nil, fmt.Errorf("edit sqlite database %s: %w", path, err)
	}
	applied = make([]bool, len(stmts))
	for i, s := range stmts {
		if err := ctx.Err(); err != nil {
			_ = c.exec(`ROLLBACK`)
			return nil, fmt.Errorf("edit sqlite database %s: %w", path, err)
		}
		if err := c.exec(`SAVEPOINT edit`); err != nil {
			_ = c.exec(`ROLLBACK`)
			return nil, fmt.Errorf("edit sqlite database %s: %w", path, err)
		}
		if err := c.exec(s); err != nil {
			if rerr := c.exec(`ROLLBACK TO edit; RELEASE edit`); rerr != nil {
				_ = c.exec(`ROLLBACK`)
				return nil, fmt.Errorf("edit sqlite database %s: statement %d: %w", path, i+1, rerr)
			}
			continue
		}
		if err := c.exec(`RELEASE edit`); err != nil {
			_ = c.exec(`ROLLBACK`)
			return nil, fmt.Errorf("edit sqlite database %s: %w", path, err)
		}
		applied[i] = true
	}
	if err := c.exec(`COMMIT`); err != nil {
		_ = c.exec(`ROLLBACK`)
		return nil, fmt.Errorf("edit sqlite database %s: commit: %w", path, err)
	}
	return applied, nil
}
