//go:build unix

package atomicfile

import "os"

// SyncDir flushes a folder's entries (a rename, a new file) to disk.
func SyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	if err := d.Sync(); err != nil {
		d.Close()
		return err
	}
	return d.Close()
}
