package eval

import (
	"errors"
	"fmt"
	"path/filepath"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/internal/jsonl"
)

// lockFile is the run folder's lock: two processes appending to one
// samples.jsonl would each draw the samples the other is drawing.
const lockFile = ".lock"

// lock takes the run folder's lock, held until release. The kernel drops
// it when the process dies, kill -9 included, so a crash never leaves a
// folder locked.
func lock(dir string) (release func(), err error) {
	l, err := jsonl.Acquire(filepath.Join(dir, lockFile), false)
	var locked *jsonl.LockedError
	if errors.As(err, &locked) {
		// The cause stays in the chain: the CLI exits 11 on it.
		return nil, &sqlgym.UserError{Msg: fmt.Sprintf("another sqlgym eval is writing %s (%s)", dir, locked.Holder),
			Hint: "wait for it to finish, or give another --out", Err: err}
	}
	if err != nil {
		return nil, err
	}
	return func() { l.Release() }, nil
}
