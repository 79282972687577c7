// Package sqlgym holds the domain types every other package shares: the
// typed values and result sets that engines return, the Engine contract, the
// errors engines report, tasks and their JSONL files, and verification
// outcomes. It imports no database driver; engines live in engine/*.
package sqlgym
