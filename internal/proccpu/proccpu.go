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

// errGone is a process that has ended: not an error of a reading.
var errGone = errors.New("proccpu: no such process")

// Processes reads the CPU time of each pid; one that has ended is left
// out. A pid that exists but cannot be read is an error (errors.Is
// ErrUnsupported when there is no /proc at all).
func Processes(pids []int) (Snapshot, error) {
	s := Snapshot{}
	for _, pid := range pids {
		st, err := readStat(pid)
		if errors.Is(err, errGone) {
			continue
		}
		if err != nil {
			return s, err
		}
		s[pid] = st.cpu
	}
	return s, nil
}

// Counter sums the CPU time of a set of processes that changes while it
// is read (a database server's backends for one user): each reading adds
// what the processes listed now spent since the last reading, counting a
// new one whole. It only grows. A process that ends between two readings
// loses what it spent since the last one.
type Counter struct {
	pids  func() ([]int, error)
	seen  Snapshot
	total time.Duration
}

// NewCounter counts the processes pids lists at each reading.
func NewCounter(pids func() ([]int, error)) *Counter { return &Counter{pids: pids} }

// Read is the total so far.
func (c *Counter) Read() (time.Duration, error) {
	pids, err := c.pids()
	if err != nil {
		return c.total, err
	}
	now, err := Processes(pids)
	if err != nil {
		return c.total, err
	}
	c.total += now.Since(c.seen)
	c.seen = now
	return c.total, nil
}
