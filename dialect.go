package sqlgym

import (
	"path/filepath"
	"strings"
)

// URLDialect names the engine a database URL opens, by the rules of
// engine.ParseURL (sqlite:PATH, duckdb:PATH, postgres:// or postgresql://, mysql://,
// or a bare path by its extension), or "" for a URL no engine opens.
// Packages that must not link the engines (the verifier keys its cache by
// dialect) read it here; a test in sqltext holds the two to the same answers.
func URLDialect(url string) Dialect {
	switch {
	case strings.HasPrefix(url, "sqlite:"):
		return DialectSQLite
	case strings.HasPrefix(url, "duckdb:"):
		return DialectDuckDB
	case strings.HasPrefix(url, "postgres://"), strings.HasPrefix(url, "postgresql://"):
		return DialectPostgres
	case strings.HasPrefix(url, "mysql://"):
		return DialectMySQL
	}
	switch strings.ToLower(filepath.Ext(url)) {
	case ".sqlite", ".sqlite3", ".db":
		return DialectSQLite
	case ".duckdb":
		return DialectDuckDB
	}
	return ""
}
