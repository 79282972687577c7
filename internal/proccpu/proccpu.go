package proccpu

import (
	"errors"
	"time"
)

// ErrUnsupported is returned where the system has no /proc to read.
var ErrUnsupported = errors.New("proccpu: CPU time of other processes is not readable on this system (Linux /proc only)")

// Snapshot is the CPU time of some processes at one moment, by pid.
type Snapshot map[int]time.Duration

// Since is the CPU time the processes of now spent since before: a pid
// absent from before started in between and counts whole. A process that
// ended in between is not in now and its last part is lost: callers that
// must not lose it read its parent's reaped-children time too (Tree).
func (now Snapshot) Since(before Snapshot) time.Duration {
	var d time.Duration
	for pid, t := range now {
		if b := before[pid]; t > b {
			d += t - b
		}
	}
	return d
}

// Processes reads the CPU time of each pid; one that has ended, or that
// cannot be read, is left out (errors.Is ErrUnsupported when none can be
// read because there is no /proc).
func Processes(pids []int) (Snapshot, error) {
	s := Snapshot{}
	var firstErr error
	for _, pid := range pids {
		st, err := readStat(pid)
		if err != nil {
			if firstErr == nil {
				firstErr = err
			}
			continue
		}
		s[pid] = st.cpu
	}
	if len(s) == 0 && len(pids) > 0 {
		return s, firstErr
	}
	return s, nil
}
