package postgres

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// Digest returns a checksum of everything a statement could change in
// schema: the names and kinds of its relations, every table's rows (as
// the md5 of their sorted text forms), and every sequence's position. Two
// equal digests mean the schema's data is the same. It needs a role that
// can read the whole schema; tests use it to prove hostile SQL changed
// nothing.
func Digest(ctx context.Context, dsn, schema string) (string, error) {
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return "", infra(ctx, fmt.Errorf("digest: %w", err))
	}
	defer conn.Close(context.WithoutCancel(ctx))
	return digestConn(ctx, conn, schema)
}

func digestConn(ctx context.Context, conn *pgx.Conn, schema string) (string, error) {
	type rel struct{ name, kind string }
	rows, err := conn.Query(ctx, `SELECT c.relname::text, c.relkind::text FROM pg_catalog.pg_class c
		JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
		WHERE n.nspname = $1 AND c.relkind IN ('r', 'p', 'v', 'm', 'f', 'S', 'i')
		ORDER BY c.relname COLLATE "C"`, schema)
	if err != nil {
		return "", fmt.Errorf("postgres digest: list relations: %w", err)
	}
	rels, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (rel, error) {
		var x rel
		err := r.Scan(&x.name, &x.kind)
		return x, err
	})
	if err != nil {
		return "", fmt.Errorf("postgres digest: list relations: %w", err)
	}
	h := sha256.New()
	for _, r := range rels {
		q := pgx.Identifier{schema, r.name}.Sanitize()
		var part string
		switch r.kind {
		case "r", "p", "m":
			err = conn.QueryRow(ctx, `SELECT count(*)::text || ':' || coalesce(md5(string_agg(t::text, E'\n' ORDER BY t::text COLLATE "C")), '') FROM `+q+` t`).Scan(&part)
		case "S":
			err = conn.QueryRow(ctx, `SELECT last_value::text || ':' || is_called::text FROM `+q).Scan(&part)
		}
		if err != nil {
			return "", fmt.Errorf("postgres digest: %s: %w", q, err)
		}
		fmt.Fprintf(h, "%s\x00%s\x00%s\n", r.name, r.kind, part)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
