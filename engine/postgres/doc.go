// Package postgres is the PostgreSQL sandbox engine: it runs model-written
// SQL through a pool of connections made as a non-privileged reader role,
// one statement per read-only transaction that is always rolled back, with
// time limits set on the server and on the client, row and byte caps, and
// values canonicalised to sqlgym.Value.
//
// It owns the whole PostgreSQL side of sqlgym: Open (which refuses roles
// that could read or write server files), Query, Load (the seeding path of
// `sqlgym db create --engine postgres`) and Digest (a checksum of a
// schema's rows, for tests that prove hostile SQL changed nothing).
//
// Defence is layered, so that no single check has to be perfect:
//
//   - a screen in front of the server refuses more than one statement,
//     any statement that is not a query (SELECT, WITH, VALUES, TABLE), and
//     calls to functions that reach past the transaction (advisory locks,
//     signalling other backends, dynamic SQL, large objects, sleeps);
//   - the role itself can only read: Open refuses superusers and members
//     of the server-file roles, because a read-only transaction does not
//     stop them;
//   - every statement runs in BEGIN READ ONLY with SET LOCAL limits, and is
//     sent with the extended protocol, which the server refuses to run
//     with several statements;
//   - the transaction is always rolled back and session advisory locks are
//     released, and a connection whose state is in doubt is closed rather
//     than returned to the pool.
package postgres
