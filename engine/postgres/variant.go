package postgres

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/sqlgym/sqlgym"
)

// The functions here make and change the variant schemas of `sqlgym
// variants`: copies of a schema in the same database that sqlgym itself
// writes. They run trusted statements only, with the rights of the DSN's
// role (one that may create schemas), never model SQL.

// CopySchema creates schema to as a copy of schema from: every table
// created like the original with its columns, NOT NULL, CHECK, primary key
// and UNIQUE constraints, indexes and generated columns (CREATE TABLE ...
// LIKE ... INCLUDING ALL EXCLUDING DEFAULTS EXCLUDING IDENTITY: a copied
// default would still draw from the original's sequences, and an identity
// column GENERATED ALWAYS would refuse the explicit keys that the
// variants' new rows carry), the rows copied in physical order, then the
// foreign keys added between the copies, then the views. The roles that
// may use from (PUBLIC aside) and the roles named in readers get USAGE on
// to and SELECT on its tables and views, so the sandbox's reader role
// reads the copy as it reads the original: readers names it for a from
// such as public, which every role may use. A schema to that exists
// already is refused.
func CopySchema(ctx context.Context, dsn, from, to string, readers ...string) error {
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return infra(ctx, fmt.Errorf("copy schema: %w", err))
	}
	defer conn.Close(context.WithoutCancel(ctx))
	tx, err := conn.Begin(ctx)
	if err != nil {
		return infra(ctx, fmt.Errorf("copy schema: %w", err))
	}
	defer tx.Rollback(context.WithoutCancel(ctx))
	src, dst := pgx.Identifier{from}.Sanitize(), pgx.Identifier{to}.Sanitize()
	var exists bool
	if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_catalog.pg_namespace WHERE nspname = $1)`, to).Scan(&exists); err != nil {
		return fmt.Errorf("copy schema %s: %w", src, err)
	}
	if exists {
		return sqlgym.Userf("drop it (DROP SCHEMA "+dst+" CASCADE) or pass --replace",
			"postgres schema %q already exists", to)
	}
	tables, err := collect(ctx, tx, `SELECT c.relname::text FROM pg_catalog.pg_class c
		JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
		WHERE n.nspname = $1 AND c.relkind IN ('r', 'p') AND NOT c.relispartition ORDER BY c.relname`, from)
	if err != nil {
		return fmt.Errorf("copy schema %s: list tables: %w", src, err)
	}
	// Constraint and view definitions are printed with the names they
	// reference unqualified when from is the search_path, so they resolve
	// to the copies when run with to as the search_path.
	if _, err := tx.Exec(ctx, "SET LOCAL search_path TO "+src); err != nil {
		return fmt.Errorf("copy schema %s: %w", src, err)
	}
	fks, err := collect(ctx, tx, `SELECT format('ALTER TABLE %I ADD CONSTRAINT %I %s', c.relname, k.conname, pg_get_constraintdef(k.oid))
		FROM pg_catalog.pg_constraint k JOIN pg_catalog.pg_class c ON c.oid = k.conrelid
		JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
		WHERE n.nspname = $1 AND k.contype = 'f' ORDER BY c.relname, k.conname`, from)
	if err != nil {
		return fmt.Errorf("copy schema %s: list foreign keys: %w", src, err)
	}
	views, err := collect(ctx, tx, `SELECT format('CREATE VIEW %I AS %s', c.relname, pg_get_viewdef(c.oid))
		FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
		WHERE n.nspname = $1 AND c.relkind = 'v' ORDER BY c.oid`, from)
	if err != nil {
		return fmt.Errorf("copy schema %s: list views: %w", src, err)
	}
	users, err := schemaReaders(ctx, tx, from)
	if err != nil {
		return err
	}
	for _, r := range readers {
		if r != "" && !slices.Contains(users, r) {
			users = append(users, r)
		}
	}
	stmts := []string{"CREATE SCHEMA " + dst}
	for _, t := range tables {
		st, dt := src+"."+pgx.Identifier{t}.Sanitize(), dst+"."+pgx.Identifier{t}.Sanitize()
		// A generated column takes no value: the copy computes it again.
		cols, err := collect(ctx, tx, `SELECT quote_ident(a.attname) FROM pg_catalog.pg_attribute a
			JOIN pg_catalog.pg_class c ON c.oid = a.attrelid JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
			WHERE n.nspname = $1 AND c.relname = $2 AND a.attnum > 0 AND NOT a.attisdropped AND a.attgenerated = ''
			ORDER BY a.attnum`, from, t)
		if err != nil {
			return fmt.Errorf("copy schema %s: columns of %s: %w", src, t, err)
		}
		list := strings.Join(cols, ", ")
		stmts = append(stmts,
			fmt.Sprintf("CREATE TABLE %s (LIKE %s INCLUDING ALL EXCLUDING DEFAULTS EXCLUDING IDENTITY)", dt, st),
			fmt.Sprintf("INSERT INTO %s (%s) SELECT %s FROM %s ORDER BY ctid", dt, list, list, st))
	}
	stmts = append(stmts, "SET LOCAL search_path TO "+dst)
	stmts = append(stmts, fks...)
	stmts = append(stmts, views...)
	for _, r := range users {
		role := pgx.Identifier{r}.Sanitize()
		stmts = append(stmts, "GRANT USAGE ON SCHEMA "+dst+" TO "+role,
			"GRANT SELECT ON ALL TABLES IN SCHEMA "+dst+" TO "+role)
	}
	for _, s := range stmts {
		if _, err := tx.Exec(ctx, s); err != nil {
			return fmt.Errorf("copy schema %s to %s: %s: %w", src, dst, abbreviate(s), err)
		}
	}
	if err := tx.Commit(ctx); err != nil {
		return fmt.Errorf("copy schema %s: commit: %w", src, err)
	}
	return nil
}

func collect(ctx context.Context, tx pgx.Tx, q string, args ...any) ([]string, error) {
	rows, err := tx.Query(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, pgx.RowTo[string])
}

// EditSchema changes the tables of schema, a copy that the caller owns:
// each group of trusted statements runs in a savepoint of one transaction
// with schema as the search_path, so a group with a statement that breaks
// a constraint (NOT NULL, UNIQUE, primary and foreign keys, CHECK, a type)
// is rolled back whole and reported false in applied; the others commit
// together. The error is for a schema that cannot be edited at all.
func EditSchema(ctx context.Context, dsn, schema string, groups [][]string) (applied []bool, err error) {
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return nil, infra(ctx, fmt.Errorf("edit schema: %w", err))
	}
	defer conn.Close(context.WithoutCancel(ctx))
	tx, err := conn.Begin(ctx)
	if err != nil {
		return nil, infra(ctx, fmt.Errorf("edit schema: %w", err))
	}
	defer tx.Rollback(context.WithoutCancel(ctx))
	ident := pgx.Identifier{schema}.Sanitize()
	if _, err := tx.Exec(ctx, "SET LOCAL search_path TO "+ident); err != nil {
		return nil, fmt.Errorf("edit schema %s: %w", ident, err)
	}
	applied = make([]bool, len(groups))
	for i, g := range groups {
		sp, err := tx.Begin(ctx) // a savepoint
		if err != nil {
			return nil, fmt.Errorf("edit schema %s: group %d: %w", ident, i+1, err)
		}
		ok := true
		for _, s := range g {
			if _, err := sp.Exec(ctx, s); err != nil {
				if cerr := ctx.Err(); cerr != nil {
					return nil, fmt.Errorf("edit schema %s: %w", ident, cerr)
				}
				if _, isPg := asPgError(err); !isPg {
					return nil, infra(ctx, fmt.Errorf("edit schema %s: group %d: %w", ident, i+1, err))
				}
				ok = false
				break
			}
		}
		if !ok {
			if err := sp.Rollback(ctx); err != nil {
				return nil, fmt.Errorf("edit schema %s: group %d: roll back: %w", ident, i+1, err)
			}
			continue
		}
		if err := sp.Commit(ctx); err != nil {
			return nil, fmt.Errorf("edit schema %s: group %d: release: %w", ident, i+1, err)
		}
		applied[i] = true
	}
	if err := tx.Commit(ctx); err != nil {
		return nil, fmt.Errorf("edit schema %s: commit: %w", ident, err)
	}
	return applied, nil
}

// DropSchema drops schema and everything in it; a schema that does not
// exist is no error.
func DropSchema(ctx context.Context, dsn, schema string) error {
	return adminExec(ctx, dsn, "DROP SCHEMA IF EXISTS "+pgx.Identifier{schema}.Sanitize()+" CASCADE")
}

// RenameSchema renames schema from to to (which must not exist).
func RenameSchema(ctx context.Context, dsn, from, to string) error {
	return adminExec(ctx, dsn, "ALTER SCHEMA "+pgx.Identifier{from}.Sanitize()+" RENAME TO "+pgx.Identifier{to}.Sanitize())
}

// SchemasLike lists the schemas whose names match the regular expression
// pattern (PostgreSQL's ~ operator), in name order.
func SchemasLike(ctx context.Context, dsn, pattern string) ([]string, error) {
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return nil, infra(ctx, fmt.Errorf("list schemas: %w", err))
	}
	defer conn.Close(context.WithoutCancel(ctx))
	rows, err := conn.Query(ctx, `SELECT nspname::text FROM pg_catalog.pg_namespace WHERE nspname ~ $1 ORDER BY 1`, pattern)
	if err != nil {
		return nil, fmt.Errorf("list schemas: %w", err)
	}
	return pgx.CollectRows(rows, pgx.RowTo[string])
}

func adminExec(ctx context.Context, dsn, stmt string) error {
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return infra(ctx, fmt.Errorf("%s: %w", abbreviate(stmt), err))
	}
	defer conn.Close(context.WithoutCancel(ctx))
	if _, err := conn.Exec(ctx, stmt); err != nil {
		return fmt.Errorf("%s: %w", abbreviate(stmt), err)
	}
	return nil
}

// DSNUser is the role a DSN logs in as ("" when the DSN does not parse).
func DSNUser(dsn string) string {
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return ""
	}
	return cfg.User
}
