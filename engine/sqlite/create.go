package sqlite

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"path/filepath"

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
	c, err := openDB(uriOf(abs, url.Values{"mode": {"rw"}}), openReadWrite|openURI|openNoMutex, false)
	if err != nil {
		return fmt.Errorf("create sqlite database %s: %w", path, err)
	}
	defer func() {
		if cerr := c.close(); err == nil && cerr != nil {
			err = fmt.Errorf("create sqlite database %s: close: %w", path, cerr)
		}
	}()
	stop := c.interruptOn(ctx)
	defer stop()
	if err := c.exec(`BEGIN`); err != nil {
		return fmt.Errorf("create sqlite database %s: %w", path, err)
	}
	for i, s := range stmts {
		if err := c.exec(s); err != nil {
			_ = c.exec(`ROLLBACK`)
			return fmt.Errorf("create sqlite database %s: statement %d: %w", path, i+1, err)
		}
	}
	if err := c.exec(`COMMIT`); err != nil {
		_ = c.exec(`ROLLBACK`)
		return fmt.Errorf("create sqlite database %s: commit: %w", path, err)
	}
	return nil
}

// FileDigest is sqlgym.FileDigest, kept here for the engine's tests and
// callers that think of it as the SQLite file's digest.
func FileDigest(path string) (string, error) { return sqlgym.FileDigest(path) }
