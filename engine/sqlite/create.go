package sqlite

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"path/filepath"

	"github.com/ncruces/go-sqlite3"
	"github.com/sqlgym/sqlgym"
)

// Create builds a new, writable SQLite file at path by running stmts with
// full rights in one transaction. It refuses an existing file, and removes
// the partial file when a statement fails. Statements are trusted: they
// may hold several statements each.
func Create(ctx context.Context, path string, stmts []string) (err error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return fmt.Errorf("create sqlite database %s: %w", path, err)
	}
	// O_EXCL makes "refuses an existing file" hold even against a racing
	// creator; SQLite takes the empty file as an empty database.
	f, err := os.OpenFile(abs, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return fmt.Errorf("create sqlite database: %w", err)
	}
	f.Close()
	defer func() {
		if err != nil {
			os.Remove(abs)
			os.Remove(abs + "-journal")
		}
	}()

	c, err := sqlite3.OpenFlags(uriOf(abs, url.Values{"mode": {"rw"}}), sqlite3.OPEN_READWRITE|sqlite3.OPEN_URI)
	if err != nil {
		return fmt.Errorf("create sqlite database %s: %w", path, err)
	}
	defer func() {
		if cerr := c.Close(); err == nil && cerr != nil {
			err = fmt.Errorf("create sqlite database %s: close: %w", path, cerr)
		}
	}()
	c.SetInterrupt(ctx)
	defer c.SetInterrupt(context.Background())

	if err := c.Exec(`BEGIN`); err != nil {
		return fmt.Errorf("create sqlite database %s: %w", path, err)
	}
	for i, s := range stmts {
		if err := c.Exec(s); err != nil {
			_ = c.Exec(`ROLLBACK`)
			return fmt.Errorf("create sqlite database %s: statement %d: %w", path, i+1, err)
		}
	}
	if err := c.Exec(`COMMIT`); err != nil {
		_ = c.Exec(`ROLLBACK`)
		return fmt.Errorf("create sqlite database %s: commit: %w", path, err)
	}
	return nil
}

// FileDigest is sqlgym.FileDigest, kept here for the engine's tests and
// callers that think of it as the SQLite file's digest.
func FileDigest(path string) (string, error) { return sqlgym.FileDigest(path) }
