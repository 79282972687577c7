//go:build unix

package eval

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"

	"github.com/sqlgym/sqlgym"
)

// lockFile is the run folder's lock: two processes appending to one
// samples.jsonl would each draw the samples the other is drawing.
const lockFile = ".lock"

// lock takes the run folder's lock, held until release. The kernel drops
// it when the process dies, kill -9 included, so a crash never leaves a
// folder locked.
func lock(dir string) (release func(), err error) {
	f, err := os.OpenFile(filepath.Join(dir, lockFile), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, fmt.Errorf("lock run folder: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, sqlgym.Userf("wait for it to finish, or give another --out", "another sqlgym eval is writing %s", dir)
		}
		return nil, fmt.Errorf("lock run folder: %w", err)
	}
	return func() { f.Close() }, nil
}
