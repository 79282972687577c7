//go:build unix

package bench

import (
	"syscall"
	"time"
)

// selfCPU is the user plus system CPU time this process has used
// (getrusage RUSAGE_SELF): every thread, the Go runtime's too.
func selfCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
