//go:build !linux

package duckdb

import "errors"

// workersSupported is false: without Linux's RLIMIT_DATA semantics a
// worker would have no hard memory cap, so DuckDB runs in-process.
const workersSupported = false

func workerExecutable() (string, error) {
	return "", errors.New("duckdb workers run on Linux only")
}

func setDataLimit(uint64) error { return nil }
