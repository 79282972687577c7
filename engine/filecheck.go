package engine

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/sqlgym/sqlgym"
)

// File headers: SQLite's is documented in its file format ("SQLite format
// 3\0" at offset 0); a DuckDB database file holds "DUCK" at offset 8.
var (
	sqliteMagic = []byte("SQLite format 3\x00")
	duckdbMagic = []byte("DUCK")
)

// fileKind reads the header of the file at path: the dialect whose file it
// is, or "" when it is neither's (empty, or something else).
func fileKind(path string) (sqlgym.Dialect, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	head := make([]byte, 16)
	n, err := io.ReadFull(f, head)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return "", err
	}
	head = head[:n]
	switch {
	case bytes.HasPrefix(head, sqliteMagic):
		return sqlgym.DialectSQLite, nil
	case len(head) >= 12 && bytes.Equal(head[8:12], duckdbMagic):
		return sqlgym.DialectDuckDB, nil
	}
	return "", nil
}

// checkFile refuses, with a hint, a database file that cannot be what
// its URL says: missing, a folder, or the other engine's file. The engines'
// own errors for those ("unable to open database file", "not a database")
// do not say which.
func checkFile(loc Location) error {
	kind := string(loc.Dialect)
	fi, err := os.Stat(loc.Path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return sqlgym.Userf(missingFileHint(kind, loc.Path), "%s database file %s does not exist: %w", kind, loc.Path, err)
	case err != nil:
		return fmt.Errorf("%s database file %s: %w", kind, loc.Path, err)
	case fi.IsDir():
		return sqlgym.Userf("name the database file inside it ("+kind+":"+loc.Path+"/NAME."+kind+"), or pass the folder as --db-dir",
			"%s database %s is a folder, not a database file", kind, loc.Path)
	}
	got, err := fileKind(loc.Path)
	if err != nil {
		return fmt.Errorf("%s database file %s: %w", kind, loc.Path, err)
	}
	if got != "" && got != loc.Dialect {
		return sqlgym.Userf("write "+string(got)+":"+loc.Path+" instead",
			"%s is a %s database file, but its URL says %s:", loc.Path, got, kind)
	}
	if got == "" && fi.Size() > 0 {
		// The engine would say "file is not a database" and no more.
		return sqlgym.Userf("give the database file itself (a .sql dump loads with 'sqlite3 NEW.sqlite < dump.sql'; a zip or tar must be unpacked first)",
			"%s is not a SQLite or DuckDB database file (its first bytes are neither's)", loc.Path)
	}
	return nil
}

// missingFileHint points at the path: a missing file is almost always a
// typo or the wrong working folder. Writing the built-in shop database is
// suggested only for a file named after it, since it would not be the
// user's data.
func missingFileHint(kind, path string) string {
	hint := "check the path"
	if !filepath.IsAbs(path) {
		if wd, err := os.Getwd(); err == nil {
			hint += " (relative paths start from the current folder, " + wd + ")"
		}
	}
	if strings.Contains(strings.ToLower(filepath.Base(path)), "shop") {
		hint += "; to write the built-in shop database there: sqlgym db create shop --engine " + kind + " --out " + path
	}
	return hint
}
