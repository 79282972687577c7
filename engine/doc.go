// Package engine opens a sandboxed sqlgym.Engine from a database URL
// (sqlite:PATH, duckdb:PATH, postgres://..., mysql://...). Each engine lives in its own
// subpackage, one per driver; this package only dispatches.
package engine
