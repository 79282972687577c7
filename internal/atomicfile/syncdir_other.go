//go:build !unix

package atomicfile

// SyncDir is a no-op where a folder cannot be opened for syncing (Windows
// makes a rename durable by itself).
func SyncDir(dir string) error { return nil }
