//go:build unix

package jsonl

import (
	"errors"
	"os"
	"syscall"
)

// flock takes an exclusive flock on f; busy reports another holder when
// not waiting.
func flock(f *os.File, wait bool) (busy bool, err error) {
	how := syscall.LOCK_EX
	if !wait {
		how |= syscall.LOCK_NB
	}
	for {
		err = syscall.Flock(int(f.Fd()), how)
		if !errors.Is(err, syscall.EINTR) {
			break
		}
	}
	if errors.Is(err, syscall.EWOULDBLOCK) {
		return true, nil
	}
	return false, err
}
