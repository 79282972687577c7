// Package catalog resolves database names the same way for every command
// (--db NAME=URL, --db-dir DIR, and the built-in "shop"), materialises the
// built-in shop database into the cache on first use, and keeps one open
// sandboxed engine (a connection pool) per database.
package catalog
