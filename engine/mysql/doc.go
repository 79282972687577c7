// Package mysql is the sqlgym engine for MySQL and MariaDB, through
// go-sql-driver/mysql. The server has no read-only session a statement
// cannot leave and no authorizer callback, so the sandbox is layered: a
// SELECT-only account checked on connect (account.go), a screen that reads
// the statement as the server's lexer does, executable comments included
// (lex.go, screen.go), a read-only transaction that is always rolled back,
// a time limit the server enforces, KILL QUERY from a second connection
// when the caller's context ends, and row and byte caps (query.go).
// docs/sandbox-mysql.md describes each layer and what it stops.
package mysql
