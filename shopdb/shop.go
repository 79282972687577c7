package shopdb

import (
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
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
