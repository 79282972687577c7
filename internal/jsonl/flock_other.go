//go:build !unix

package jsonl

import "os"

// flock is a no-op where flock is not available: files are then not
// protected against a second process appending at the same time.
func flock(f *os.File, wait bool) (busy bool, err error) { return false, nil }
