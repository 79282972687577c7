// Package atomicfile writes a file so that a reader, a crash or a power cut
// sees either the old file or the whole new one, never half of either: the
// bytes go to a temporary file with a unique name in the target's own
// folder, the file is synced, renamed over the target, and the folder is
// synced so the rename itself survives a crash. Every file sqlgym writes
// whole (task files, datasets, reports, run manifests, the cached shop
// database) goes through it; output files get mode 0644.
//
// It is written here rather than taken from github.com/google/renameio/v2
// (the closest well-kept library) because renameio does not sync the
// folder after the rename, puts its temporary file in $TMPDIR unless told
// otherwise, and cannot hand a temporary path to a writer that must create
// the file itself (SQLite and DuckDB create their database files by name).
// What is left is some sixty lines of the standard library.
package atomicfile
