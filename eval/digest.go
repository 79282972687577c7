package eval

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/engine"
	"github.com/sqlgym/sqlgym/engine/mysql"
	"github.com/sqlgym/sqlgym/schema"
)

// dbDigests returns a digest per database the tasks use, so a run is never
// continued on data that changed under it.
//
//   - SQLite and DuckDB: "sha256:" and the SHA-256 of the file's bytes.
//   - PostgreSQL: "postgres:" and the SHA-256 of the schema's structure
//     (tables, columns, types and keys, as the prompt's DDL shows it) and
//     of each table's contents: its row count and an order-free hash of
//     its rows, computed by the server. How the URL is spelled
//     (localhost or 127.0.0.1, the user, the password) is left out: the
//     same data reached another way is the same database, and a copy
//     with edited rows is not.
//   - MySQL and MariaDB: "mysql:" and the same, with a content hash MySQL
//     computes (mysqlTableContents); the URL's spelling is left out too.
//
// With variants (a run judged on variant databases too) every variant
// database is digested as well, under "NAME variant V" (V its file or
// schema name): emptied or edited variants change the manifest.
func dbDigests(ctx context.Context, dbs Databases, tasks []sqlgym.Task, pgSchema string, variants bool) (map[string]string, error) {
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
			d, err = postgresDigest(ctx, dbs, name, schema)
		case sqlgym.DialectMySQL:
			d, err = mysqlDigest(ctx, dbs, name)
		default:
			d, err = fileDigest(loc.Path)
		}
		if err != nil {
			return nil, fmt.Errorf("database %s: %w", name, err)
		}
		out[name] = d
		if variants {
			if err := variantDigests(ctx, dbs, tasks, name, pgSchema, out); err != nil {
				return nil, fmt.Errorf("database %s: %w", name, err)
			}
		}
	}
	return out, nil
}

// variantDigests adds the digest of each variant of database name: the
// tasks' db_variants when they name any, else the catalog's, as the
// verifier picks them.
func variantDigests(ctx context.Context, dbs Databases, tasks []sqlgym.Task, name, pgSchema string, out map[string]string) error {
	seen := map[string]bool{}
	var urls []string
	for _, t := range tasks {
		if t.DB != name {
			continue
		}
		for _, u := range t.DBVariants {
			// A task judged on its database alone lists that database
			// (variants/pertask.go): not a variant.
			if u == name {
				continue
			}
			if !seen[u] {
				seen[u] = true
				urls = append(urls, u)
			}
		}
	}
	if len(urls) == 0 {
		all, err := dbs.Variants(name)
		if err != nil {
			return err
		}
		if len(all) > 1 {
			urls = all[1:] // the first is the original
		}
	}
	for _, u := range urls {
		loc, err := engine.ParseURL(u)
		if err != nil {
			return err
		}
		var d, id string
		if loc.Dialect == sqlgym.DialectMySQL {
			id = mysql.URLDatabase(loc.DSN)
			eng, err := dbs.EngineURL(ctx, u)
			if err != nil {
				return err
			}
			if d, err = mysqlEngineDigest(ctx, eng); err != nil {
				return err
			}
		} else if loc.Dialect == sqlgym.DialectPostgres {
			id = loc.Schema
			eng, err := dbs.EngineURL(ctx, u)
			if err != nil {
				return err
			}
			d, err = engineDigest(ctx, eng, loc.Schema)
			if err != nil {
				return err
			}
		} else {
			id = filepath.Base(loc.Path)
			if d, err = fileDigest(loc.Path); err != nil {
				return err
			}
		}
		out[name+" variant "+id] = d
	}
	return nil
}

func fileDigest(path string) (string, error) {
	d, err := sqlgym.FileDigest(path)
	return "sha256:" + d, err
}

func postgresDigest(ctx context.Context, dbs Databases, name, pgSchema string) (string, error) {
	eng, err := dbs.Engine(ctx, name)
	if err != nil {
		return "", err
	}
	return engineDigest(ctx, eng, pgSchema)
}

// engineDigest digests a PostgreSQL database through its engine.
func engineDigest(ctx context.Context, eng sqlgym.Engine, pgSchema string) (string, error) {
	h := sha256.New()
	if _, ok := eng.(sqlgym.Describer); !ok {
		// No catalog to read: the schema's name is all there is.
		fmt.Fprintf(h, "%s\x00", pgSchema)
		return "postgres:" + hex.EncodeToString(h.Sum(nil)), nil
	}
	s, err := schema.Load(ctx, eng, 0)
	if err != nil {
		return "", err
	}
	io.WriteString(h, schema.Render(s, schema.Options{}))
	for _, t := range s.Tables {
		c, err := tableContents(ctx, eng, t.Name)
		if err != nil {
			return "", fmt.Errorf("digest table %s: %w", t.Name, err)
		}
		fmt.Fprintf(h, "\x00%s\x00%s", t.Name, c)
	}
	return "postgres:" + hex.EncodeToString(h.Sum(nil)), nil
}

// contentsLimits give a table's content hash the time a large table needs;
// the answer is one short row.
var contentsLimits = sqlgym.Limits{Timeout: 5 * time.Minute, MaxRows: 2, MaxBytes: 1 << 16}

// tableContents is a table's row count and the md5 of its rows' md5s in
// sorted order: equal for equal rows in any physical order.
func tableContents(ctx context.Context, eng sqlgym.Engine, table string) (string, error) {
	q := "SELECT count(*)::text, coalesce(md5(string_agg(md5(t::text), '' ORDER BY md5(t::text))), '') FROM " +
		schema.Quote(table) + " AS t"
	rs, err := eng.Query(ctx, q, contentsLimits)
	if err != nil {
		return "", err
	}
	if len(rs.Rows) != 1 {
		return "", fmt.Errorf("content hash: %d rows", len(rs.Rows))
	}
	var parts []string
	for _, v := range rs.Rows[0] {
		parts = append(parts, v.String())
	}
	return strings.Join(parts, " "), nil
}
