package engine

import (
	"context"
	"fmt"
	"net/url"
	"path/filepath"
	"strings"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/engine/duckdb"
	"github.com/sqlgym/sqlgym/engine/mysql"
	"github.com/sqlgym/sqlgym/engine/postgres"
	"github.com/sqlgym/sqlgym/engine/sqlite"
)

// Location is a parsed database URL.
type Location struct {
	Dialect sqlgym.Dialect
	// Path is the file of a SQLite or DuckDB database; DSN the PostgreSQL
	// connection string or the mysql:// URL.
	Path string
	DSN  string
	// Schema is the PostgreSQL schema a URL's schema= query parameter
	// selects (a variant schema, say), taken out of DSN since the server
	// does not know the parameter; it wins over Options.PostgresSchema.
	Schema string
}

// ParseURL reads sqlite:PATH, duckdb:PATH, postgres://...,
// postgresql://... or mysql://USER:PASS@HOST:PORT/DB; a bare path ending in .sqlite, .sqlite3, .db or .duckdb
// is taken by its extension. A PostgreSQL URL may end in schema=NAME among
// its query parameters: the schema its tables are in.
func ParseURL(u string) (Location, error) {
	switch {
	case strings.HasPrefix(u, "sqlite:"):
		return Location{Dialect: sqlgym.DialectSQLite, Path: strings.TrimPrefix(strings.TrimPrefix(u, "sqlite:"), "//")}, nil
	case strings.HasPrefix(u, "duckdb:"):
		return Location{Dialect: sqlgym.DialectDuckDB, Path: strings.TrimPrefix(strings.TrimPrefix(u, "duckdb:"), "//")}, nil
	case strings.HasPrefix(u, "postgres://"), strings.HasPrefix(u, "postgresql://"):
		dsn, schema := cutSchema(u)
		return Location{Dialect: sqlgym.DialectPostgres, DSN: dsn, Schema: schema}, nil
	case strings.HasPrefix(u, "mysql://"):
		return Location{Dialect: sqlgym.DialectMySQL, DSN: u}, nil
	}
	if scheme, _, ok := strings.Cut(u, ":"); ok && len(scheme) > 1 && !strings.ContainsAny(scheme, `/\.`) {
		// sqlite3:x.sqlite, file:x.db, postgresql+psycopg://: a scheme
		// sqlgym does not know, not a file name with a colon in it. (One
		// letter is a Windows drive.)
		return Location{}, sqlgym.Userf("write sqlite:PATH, duckdb:PATH or postgres://USER@HOST:PORT/DB",
			"database URL %q: unknown scheme %q", u, scheme+":")
	}
	switch strings.ToLower(filepath.Ext(u)) {
	case ".sqlite", ".sqlite3", ".db":
		return Location{Dialect: sqlgym.DialectSQLite, Path: u}, nil
	case ".duckdb":
		return Location{Dialect: sqlgym.DialectDuckDB, Path: u}, nil
	}
	return Location{}, sqlgym.Userf("write sqlite:PATH, duckdb:PATH, postgres://USER@HOST:PORT/DB or mysql://USER:PASS@HOST:PORT/DB",
		"database URL %q: unknown kind", u)
}

// String is the URL form of the location.
func (l Location) String() string {
	if l.Dialect == sqlgym.DialectPostgres {
		return WithSchema(l.DSN, l.Schema)
	}
	if l.Dialect == sqlgym.DialectMySQL {
		return l.DSN
	}
	return string(l.Dialect) + ":" + l.Path
}

// Options tune the engines Open makes.
type Options struct {
	// PostgresSchema is the search_path for a PostgreSQL database.
	PostgresSchema string
	// CatalogOnly lets a PostgreSQL role that may do more than read (a
	// superuser) connect, for a caller that runs no model-written SQL
	// and only reads the catalog and samples (db schema). Never for
	// eval, serve or verify.
	CatalogOnly bool
}

// Open opens the sandboxed engine for a database URL.
func Open(ctx context.Context, url string, opts Options) (sqlgym.Engine, error) {
	loc, err := ParseURL(url)
	if err != nil {
		return nil, err
	}
	return OpenLocation(ctx, loc, opts)
}

// OpenLocation opens the sandboxed engine for a parsed location.
func OpenLocation(ctx context.Context, loc Location, opts Options) (sqlgym.Engine, error) {
	if loc.Dialect == sqlgym.DialectSQLite || loc.Dialect == sqlgym.DialectDuckDB {
		if err := checkFile(loc); err != nil {
			return nil, err
		}
	}
	// Each branch returns its own nil on error: a typed nil pointer in an
	// interface would not compare equal to nil.
	switch loc.Dialect {
	case sqlgym.DialectSQLite:
		e, err := sqlite.Open(loc.Path, sqlite.Options{})
		if err != nil {
			return nil, err
		}
		return e, nil
	case sqlgym.DialectDuckDB:
		e, err := duckdb.Open(loc.Path, duckdb.Options{})
		if err != nil {
			return nil, err
		}
		return e, nil
	case sqlgym.DialectPostgres:
		schema := opts.PostgresSchema
		if loc.Schema != "" {
			schema = loc.Schema
		}
		e, err := postgres.Open(ctx, loc.DSN, postgres.Options{Schema: schema, AllowPrivileged: opts.CatalogOnly})
		if err != nil {
			return nil, err
		}
		return e, nil
	case sqlgym.DialectMySQL:
		e, err := mysql.Open(ctx, loc.DSN, mysql.Options{})
		if err != nil {
			return nil, err
		}
		return e, nil
	}
	return nil, fmt.Errorf("open %s: no engine for dialect %q", loc, loc.Dialect)
}

// cutSchema takes the schema= parameter out of a PostgreSQL URL's query,
// leaving the other parameters in their order (the DSN text is a cache
// and digest key elsewhere, so it must not be rewritten needlessly).
func cutSchema(u string) (dsn, schema string) {
	base, query, ok := strings.Cut(u, "?")
	if !ok {
		return u, ""
	}
	frag := ""
	if i := strings.IndexByte(query, '#'); i >= 0 {
		query, frag = query[:i], query[i:]
	}
	var keep []string
	for _, p := range strings.Split(query, "&") {
		if v, ok := strings.CutPrefix(p, "schema="); ok {
			if s, err := url.QueryUnescape(v); err == nil {
				schema = s
			} else {
				schema = v
			}
			continue
		}
		if p != "" {
			keep = append(keep, p)
		}
	}
	if len(keep) == 0 {
		return base + frag, schema
	}
	return base + "?" + strings.Join(keep, "&") + frag, schema
}

// WithSchema is the PostgreSQL URL dsn selecting schema (ParseURL's
// schema= parameter); dsn itself when schema is empty.
func WithSchema(dsn, schema string) string {
	if schema == "" {
		return dsn
	}
	sep := "?"
	if strings.Contains(dsn, "?") {
		sep = "&"
	}
	return dsn + sep + "schema=" + url.QueryEscape(schema)
}
