package shopdb

import (
	"context"
	"crypto/sha256"
	"database/sql"
	_ "embed"
	"encoding/hex"
	"fmt"
	"strings"
	"sync"
)

//go:generate go run ./internal/gen/shopgen -o shop.sql

//go:embed shop.sql
var shopSQL string

// Name is the database's name wherever sqlgym refers to it ("db": "shop").
const Name = "shop"

// Facts the data is built to hold; tests check them against every engine.
const (
	NumTables = 8
	Customers = 120
	Orders    = 300
)

// dataMarker separates the DDL from the rows in shop.sql.
const dataMarker = "\n-- Data\n"

// SQL returns shop.sql whole: a comment header, the DDL, then the rows.
func SQL() string { return shopSQL }

// Schema returns the DDL: the CREATE TABLE statements with their comments,
// as `sqlgym db schema shop` prints them.
func Schema() string { return schemaText() }

var schemaText = sync.OnceValue(func() string {
	head, _, ok := strings.Cut(shopSQL, dataMarker)
	i := strings.Index(head, "CREATE TABLE")
	if !ok || i < 0 {
		panic("shopdb: shop.sql has no schema part; run go generate ./shopdb")
	}
	return strings.TrimSpace(head[i:]) + "\n"
})

// Statements returns every statement of shop.sql without its trailing
// semicolon: the CREATE TABLEs, then the INSERTs, in an order that never
// references a row before it exists. Each runs unchanged on SQLite, DuckDB
// and PostgreSQL. The slice is the caller's.
func Statements() []string { return append([]string(nil), statements()...) }

var statements = sync.OnceValue(func() []string { return splitStatements(shopSQL) })

// Digest is the hex SHA-256 of shop.sql: it names the version of the data,
// so results recorded against one version are not compared with another.
func Digest() string { return digest() }

var digest = sync.OnceValue(func() string {
	sum := sha256.Sum256([]byte(shopSQL))
	return hex.EncodeToString(sum[:])
})

// Load creates the shop tables in db and fills them, in one transaction.
// db must be empty of these tables; on PostgreSQL the tables land in the
// connection's search_path.
func Load(ctx context.Context, db *sql.DB) (err error) {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("load shop: %w", err)
	}
	defer func() {
		if err != nil {
			_ = tx.Rollback()
		}
	}()
	for _, st := range statements() {
		if _, err := tx.ExecContext(ctx, st); err != nil {
			return fmt.Errorf("load shop: %s: %w", firstWords(st), err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("load shop: commit: %w", err)
	}
	return nil
}

// firstWords names a statement in an error without quoting all its rows.
func firstWords(st string) string {
	line, _, _ := strings.Cut(st, "\n")
	if len(line) > 60 {
		line = line[:60] + "..."
	}
	return line
}
