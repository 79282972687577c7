package jsonl

import (
	"github.com/sqlgym/sqlgym/internal/redact"

	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// LockedError is returned when another process holds a lock.
type LockedError struct {
	// Path is the lock file.
	Path string
	// Holder is what the holder wrote into the lock file: its process id
	// and command line ("" when it could not be read).
	Holder string
}

func (e *LockedError) Error() string {
	if e.Holder == "" {
		return fmt.Sprintf("%s is held by another sqlgym process", e.Path)
	}
	return fmt.Sprintf("%s is held by %s", e.Path, e.Holder)
}

// LockPath is the lock file that guards the file at path: a hidden file
// beside it, removed when its holder releases it (Release), so finished
// runs keep no lock files; a crash leaves one, which the next Acquire
// takes over.
func LockPath(path string) string {
	return filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".lock")
}

// Lock is an advisory lock held on a lock file until Release. The kernel
// drops it when the process dies, kill -9 included, so a crash never
// leaves a file locked.
type Lock struct {
	f    *os.File
	path string
}

// Acquire takes the lock on the lock file at path, creating it. With wait
// it waits for a holder to release it; without, it returns a *LockedError
// at once. The holder's process id and command line are written into the
// file so the error can name who holds it.
func Acquire(path string, wait bool) (*Lock, error) {
	for {
		f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
		if err != nil {
			return nil, fmt.Errorf("lock %s: %w", path, err)
		}
		busy, err := flock(f, wait)
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("lock %s: %w", path, err)
		}
		if busy {
			f.Close()
			b, _ := os.ReadFile(path)
			return nil, &LockedError{Path: path, Holder: strings.TrimSpace(string(b))}
		}
		if !stillAt(f, path) {
			// The holder released and removed the file while we waited
			// on it: a lock on a removed file guards nothing, since the
			// next process creates a new one. Lock the file now there.
			f.Close()
			continue
		}
		holder := fmt.Sprintf("process %d (%s)\n", os.Getpid(), strings.Join(redact.Args(os.Args), " "))
		if err := f.Truncate(0); err == nil {
			f.WriteAt([]byte(holder), 0) // only informative: a failure leaves the lock valid
		}
		return &Lock{f: f, path: path}, nil
	}
}

// stillAt reports whether f is the file at path now.
func stillAt(f *os.File, path string) bool {
	a, err := f.Stat()
	if err != nil {
		return false
	}
	b, err := os.Stat(path)
	return err == nil && os.SameFile(a, b)
}

// Release removes the lock file and drops the lock. The file goes while
// the lock is still held, so no other process can hold it then; one
// waiting on it sees it removed and locks a new file (Acquire). A nil
// Lock is a no-op.
func (l *Lock) Release() error {
	if l == nil || l.f == nil {
		return nil
	}
	rerr := os.Remove(l.path)
	if errors.Is(rerr, fs.ErrNotExist) {
		rerr = nil
	}
	err := l.f.Close()
	l.f = nil
	if err == nil && rerr != nil {
		err = fmt.Errorf("remove lock file: %w", rerr)
	}
	return err
}
