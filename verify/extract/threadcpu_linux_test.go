package extract

import (
	"runtime"
	"syscall"
	"time"
)

// rusageThread is Linux's RUSAGE_THREAD (the syscall package does not
// name it): the calling thread's own CPU time.
const rusageThread = 1

// onThreadCPU runs f on one locked OS thread and returns the CPU time the
// thread spent in it: the work itself, which a loaded machine delays but
// does not grow, unlike wall time.
func onThreadCPU(f func()) time.Duration {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	before, okBefore := threadCPU()
	f()
	after, okAfter := threadCPU()
	if !okBefore || !okAfter {
		return 0
	}
	return after - before
}

func threadCPU() (time.Duration, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(rusageThread, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
