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
