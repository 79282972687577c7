package duckdb

import (
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"syscall"
	"time"
)

// How a worker that stopped answering mid-statement ended decides whose
// fault it was. Only a cap the statement itself hit is the SQL's doing;
// a worker killed from outside says nothing about the statement, and a
// crash of unknown cause is tried once more on a fresh worker before it is
// blamed on the statement.
type deathKind int

const (
	// deathOOM: the worker hit its own memory cap (RLIMIT_DATA) and the Go
	// runtime or C++ gave up instead of failing the allocation: the
	// statement's out-of-memory error.
	deathOOM deathKind = iota
	// deathExternal: a signal nobody in this engine sent (an operator's
	// kill, the kernel's OOM killer when the machine, not the worker's
	// cap, ran out): an infrastructure failure.
	deathExternal
	// deathCrash: anything else (a segfault, an abort, an unexpected exit
	// code, a worker that stopped answering): retried once.
	deathCrash
	// deathRecycled: the worker stopped itself (exitRecycled) before it
	// read the request: the request runs on a fresh worker.
	deathRecycled
)

// recycledCrash is the crash description queryWorkerOnce gives for a
// recycled worker.
const recycledCrash = "the worker had stopped itself to be replaced"

// oomMarks are what a worker past its memory cap prints as it dies: the
// Go runtime's fatal error and C++'s uncaught std::bad_alloc.
var oomMarks = []string{"out of memory", "bad_alloc", "cannot allocate memory"}

// externalSignals are the signals only someone outside the worker sends;
// a crash shows up as SIGSEGV, SIGBUS, SIGABRT (which the Go runtime turns
// into exit status 2) or an exit code.
var externalSignals = map[syscall.Signal]bool{
	syscall.SIGKILL: true, syscall.SIGTERM: true, syscall.SIGINT: true, syscall.SIGHUP: true,
	syscall.SIGQUIT: true, syscall.SIGUSR1: true, syscall.SIGUSR2: true,
}

// classifyDeath waits a little for the worker to be reaped and reads how
// it ended. The caller has not killed it.
func (w *worker) classifyDeath() (deathKind, string) {
	select {
	case <-w.exited:
	case <-time.After(2 * time.Second):
		// Its pipe broke but it is still there: a broken protocol.
		w.kill()
		<-w.exited
		return deathCrash, "it stopped answering"
	}
	desc := "it exited"
	if w.waitErr != nil {
		desc = w.waitErr.Error()
	}
	out := strings.TrimSpace(w.stderr.String())
	if out != "" {
		desc += ": " + out
	}
	if w.killed.Load() {
		// The engine itself stopped it (Close): not the statement's doing.
		return deathExternal, desc
	}
	var ee *exec.ExitError
	if errors.As(w.waitErr, &ee) {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok {
			if ws.Signaled() && externalSignals[ws.Signal()] {
				return deathExternal, desc
			}
			if ws.Exited() && ws.ExitStatus() == exitRecycled {
				return deathRecycled, desc
			}
		}
	}
	low := strings.ToLower(out)
	for _, m := range oomMarks {
		if strings.Contains(low, m) {
			return deathOOM, desc
		}
	}
	return deathCrash, desc
}

func (k deathKind) String() string {
	switch k {
	case deathOOM:
		return "out of memory"
	case deathExternal:
		return "killed from outside"
	case deathRecycled:
		return "stopped itself to be replaced"
	}
	return "crashed"
}

// deathMsg says how the worker running a statement ended.
func deathMsg(k deathKind, desc string) string {
	return fmt.Sprintf("the DuckDB worker process running the statement %s (%s)", k, desc)
}
