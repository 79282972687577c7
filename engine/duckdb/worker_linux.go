package duckdb

import "syscall"

// workersSupported: worker mode needs RLIMIT_DATA as Linux (4.7 and later)
// counts it, every private writable mapping, which covers malloc's mmap
// arenas; elsewhere DuckDB runs in-process.
const workersSupported = true

// workerExecutable is this very binary, by a path that still works after
// the file on disk was replaced or removed (an upgrade while serving).
func workerExecutable() (string, error) { return "/proc/self/exe", nil }

// setDataLimit caps the worker's data segment. RLIMIT_DATA rather than
// RLIMIT_AS: address-space reservations (the Go runtime's, thread stacks'
// guard pages, DuckDB's mapped code) would make an AS limit far above the
// memory really usable, or fail at startup.
func setDataLimit(n uint64) error {
	if n == 0 {
		return nil
	}
	return syscall.Setrlimit(syscall.RLIMIT_DATA, &syscall.Rlimit{Cur: n, Max: n})
}
