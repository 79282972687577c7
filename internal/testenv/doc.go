// Package testenv finds the real services and public data that tests use,
// skipping with a clear message when they are absent and failing instead
// when CI requires them (SQLGYM_REQUIRE_POSTGRES=1, SQLGYM_REQUIRE_DATA=1).
package testenv
