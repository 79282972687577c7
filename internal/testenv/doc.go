// Package testenv finds the real services, public data and outside
// programs that tests use, skipping with a clear message when they are
// absent and failing instead when CI requires them
// (SQLGYM_REQUIRE_POSTGRES=1, SQLGYM_REQUIRE_DATA=1, SQLGYM_REQUIRE_TOOLS=1),
// and gates the slow tests behind SQLGYM_SLOW_TESTS=1.
package testenv
