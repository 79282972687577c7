package jsonl

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
)

// LockMode says whether Open locks the file and what it does when another
// process holds it.
type LockMode int

const (
	// NoLock: the caller holds a lock that covers the file (eval's run
	// folder lock covers samples.jsonl).
	NoLock LockMode = iota
	// LockOrFail refuses a file another process is appending to, with a
	// *LockedError naming it.
	LockOrFail
	// LockWait waits for the other process: for short appends such as a
	// ledger line.
	LockWait
)

// Options configure Open.
type Options struct {
	Policy Policy
	Lock   LockMode
}

// Appender appends records to a JSONL file, one complete line per write
// call; safe for concurrent use.
type Appender struct {
	mu   sync.Mutex
	f    *os.File
	lock *Lock
	path string
}

// Open locks the file at path as opts.Lock says, scans what it holds with
// fn under opts.Policy, repairs its tail, and returns an appender that
// writes after it. Repair cuts a torn last line (see TornTail) and ends an
// unterminated but whole last line with a newline, so the next record is
// never glued to it. A missing file is created (its folder must exist).
// fn may be nil: every line is then accepted.
func Open(path string, opts Options, fn func(line int, b []byte) error) (*Appender, Result, error) {
	var lk *Lock
	if opts.Lock != NoLock {
		var err error
		if lk, err = Acquire(LockPath(path), opts.Lock == LockWait); err != nil {
			return nil, Result{}, err
		}
	}
	fail := func(err error) (*Appender, Result, error) {
		lk.Release()
		return nil, Result{}, err
	}
	if fn == nil {
		fn = func(int, []byte) error { return nil }
	}
	res, err := ScanFile(path, opts.Policy, fn)
	if errors.Is(err, os.ErrNotExist) {
		res, err = Result{TornAt: -1}, nil
	}
	if err != nil {
		return fail(err)
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return fail(fmt.Errorf("open %s: %w", path, err))
	}
	end := res.Size
	if res.TornAt >= 0 {
		end = res.TornAt
		if err := f.Truncate(end); err != nil {
			f.Close()
			return fail(fmt.Errorf("cut the torn last line of %s: %w", path, err))
		}
	}
	if _, err := f.Seek(end, io.SeekStart); err != nil {
		f.Close()
		return fail(fmt.Errorf("open %s: %w", path, err))
	}
	if res.Unterminated && res.TornAt < 0 {
		if _, err := f.Write([]byte{'\n'}); err != nil {
			f.Close()
			return fail(fmt.Errorf("end the last line of %s: %w", path, err))
		}
	}
	return &Appender{f: f, lock: lk, path: path}, res, nil
}

// Append writes v as one JSON line.
func (a *Appender) Append(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("append to %s: %w", a.path, err)
	}
	return a.AppendLine(b)
}

// AppendLine writes b, which must hold no newline, and a newline in one
// write call, so a crash leaves at most one torn line at the end.
func (a *Appender) AppendLine(b []byte) error {
	line := make([]byte, 0, len(b)+1)
	line = append(append(line, b...), '\n')
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.f == nil {
		return fmt.Errorf("append to %s: appender closed", a.path)
	}
	if _, err := a.f.Write(line); err != nil {
		return fmt.Errorf("append to %s: %w", a.path, err)
	}
	return nil
}

// Close syncs and closes the file and releases the lock.
func (a *Appender) Close() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.f == nil {
		return nil
	}
	err := a.f.Sync()
	if cerr := a.f.Close(); err == nil {
		err = cerr
	}
	a.f = nil
	a.lock.Release()
	if err != nil {
		return fmt.Errorf("close %s: %w", a.path, err)
	}
	return nil
}
