package postgres

import (
	"context"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/sqlgym/sqlgym"
)

// Load runs DDL and INSERT statements into schema, creating it, in one
// transaction with the rights of the DSN's role: the seeding path of
// `sqlgym db create --engine postgres`. The statements are portable SQL
// without schema names; search_path points them at schema.
//
// A schema that already holds tables is refused unless replace, which
// drops it with everything in it first. Roles that could use the old
// schema (the reader roles) get USAGE on the new one and SELECT on its
// tables again, so a replaced database stays readable by the sandbox.
func Load(ctx context.Context, dsn, schema string, replace bool, stmts []string) error {
	if schema == "" {
		return sqlgym.Userf("pass --schema NAME", "postgres load: no schema given")
	}
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return infra(ctx, fmt.Errorf("load: %w", err))
	}
	defer conn.Close(context.WithoutCancel(ctx))
	tx, err := conn.Begin(ctx)
	if err != nil {
		return infra(ctx, fmt.Errorf("load: %w", err))
	}
	defer tx.Rollback(context.WithoutCancel(ctx))

	ident := pgx.Identifier{schema}.Sanitize()
	var relations int
	if err := tx.QueryRow(ctx, `SELECT count(*) FROM pg_catalog.pg_class c
		JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
		WHERE n.nspname = $1 AND c.relkind IN ('r', 'p', 'v', 'm', 'f', 'S')`, schema).Scan(&relations); err != nil {
		return fmt.Errorf("postgres load: inspect schema %s: %w", ident, err)
	}
	if relations > 0 && !replace {
		return sqlgym.Userf("pass --replace to drop schema "+schema+" and everything in it, or choose another --schema",
			"postgres schema %q already holds %d tables, views or sequences", schema, relations)
	}
	readers, err := schemaReaders(ctx, tx, schema)
	if err != nil {
		return err
	}
	setup := []string{"CREATE SCHEMA IF NOT EXISTS " + ident, "SET LOCAL search_path TO " + ident}
	if replace {
		setup = append([]string{"DROP SCHEMA IF EXISTS " + ident + " CASCADE"}, setup...)
	}
	for _, s := range setup {
		if _, err := tx.Exec(ctx, s); err != nil {
			return fmt.Errorf("postgres load: %s: %w", s, err)
		}
	}
	for i, s := range stmts {
		if _, err := tx.Exec(ctx, s); err != nil {
			return fmt.Errorf("postgres load: statement %d (%s): %w", i+1, abbreviate(s), err)
		}
	}
	for _, r := range readers {
		role := pgx.Identifier{r}.Sanitize()
		for _, g := range []string{
			"GRANT USAGE ON SCHEMA " + ident + " TO " + role,
			"GRANT SELECT ON ALL TABLES IN SCHEMA " + ident + " TO " + role,
		} {
			if _, err := tx.Exec(ctx, g); err != nil {
				return fmt.Errorf("postgres load: %s: %w", g, err)
			}
		}
	}
	if err := tx.Commit(ctx); err != nil {
		return fmt.Errorf("postgres load: commit: %w", err)
	}
	return nil
}

// schemaReaders lists the roles other than the owner granted USAGE on the
// schema as it is now.
func schemaReaders(ctx context.Context, tx pgx.Tx, schema string) ([]string, error) {
	rows, err := tx.Query(ctx, `SELECT DISTINCT a.grantee::regrole::text
		FROM pg_catalog.pg_namespace n, aclexplode(n.nspacl) a
		WHERE n.nspname = $1 AND a.privilege_type = 'USAGE' AND a.grantee <> 0 AND a.grantee <> n.nspowner
		ORDER BY 1`, schema)
	if err != nil {
		return nil, fmt.Errorf("postgres load: list the readers of schema %q: %w", schema, err)
	}
	names, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("postgres load: list the readers of schema %q: %w", schema, err)
	}
	// regrole text is quoted when needed; Identifier.Sanitize quotes again.
	for i, n := range names {
		if strings.HasPrefix(n, `"`) && strings.HasSuffix(n, `"`) && len(n) >= 2 {
			names[i] = strings.ReplaceAll(n[1:len(n)-1], `""`, `"`)
		}
	}
	return names, nil
}

func abbreviate(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 80 {
		return s[:77] + "..."
	}
	return s
}
