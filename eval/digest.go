package eval

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net/url"
	"sort"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/engine"
	"github.com/sqlgym/sqlgym/schema"
)

// dbDigests returns a digest per database the tasks use, so a run is never
// continued on data that changed under it.
//
//   - SQLite and DuckDB: "sha256:" and the SHA-256 of the file's bytes.
//   - PostgreSQL: "postgres:" and the SHA-256 of the connection string
//     without its password, the --pg-schema, and the schema's structure
//     (tables, columns, types and keys, as the prompt's DDL shows it,
//     without sample values) when the engine can describe it. Hashing the
//     table contents would read every row of every table on each start;
//     this catches a different server, database, schema or table layout,
//     not rows edited in place.
func dbDigests(ctx context.Context, dbs Databases, tasks []sqlgym.Task, pgSchema string) (map[string]string, error) {
	names := map[string]bool{}
	for _, t := range tasks {
		names[t.DB] = true
	}
	sorted := make([]string, 0, len(names))
	for n := range names {
		sorted = append(sorted, n)
	}
	sort.Strings(sorted)
	out := make(map[string]string, len(sorted))
	for _, name := range sorted {
		u, err := dbs.Resolve(name)
		if err != nil {
			return nil, fmt.Errorf("database %s: %w", name, err)
		}
		loc, err := engine.ParseURL(u)
		if err != nil {
			return nil, fmt.Errorf("database %s: %w", name, err)
		}
		var d string
		switch loc.Dialect {
		case sqlgym.DialectPostgres:
			schema := pgSchema
			if loc.Schema != "" {
				schema = loc.Schema // the URL's own schema= wins, as engine.OpenLocation has it
			}
			d, err = postgresDigest(ctx, dbs, name, loc.DSN, schema)
		default:
			d, err = fileDigest(loc.Path)
		}
		if err != nil {
			return nil, fmt.Errorf("database %s: %w", name, err)
		}
		out[name] = d
	}
	return out, nil
}

func fileDigest(path string) (string, error) {
	d, err := sqlgym.FileDigest(path)
	return "sha256:" + d, err
}

func postgresDigest(ctx context.Context, dbs Databases, name, dsn, pgSchema string) (string, error) {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00", redactDSN(dsn), pgSchema)
	eng, err := dbs.Engine(ctx, name)
	if err != nil {
		return "", err
	}
	if _, ok := eng.(sqlgym.Describer); ok {
		s, err := schema.Load(ctx, eng, 0)
		if err != nil {
			return "", err
		}
		io.WriteString(h, schema.Render(s, schema.Options{}))
	}
	return "postgres:" + hex.EncodeToString(h.Sum(nil)), nil
}

// redactDSN drops the password, which must not change a digest (nor sit in
// a hash input that might be logged).
func redactDSN(dsn string) string {
	u, err := url.Parse(dsn)
	if err != nil || u.User == nil {
		return dsn
	}
	u.User = url.User(u.User.Username())
	q := u.Query()
	if q.Has("password") {
		q.Del("password")
		u.RawQuery = q.Encode()
	}
	return u.String()
}
