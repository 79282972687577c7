//go:build unix

package verify_test

import (
	"syscall"
	"testing"
	"time"
)

// selfCPU is the user plus system CPU time of this process, every thread.
func selfCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// reportCPU adds cpu-ns/op: unlike ns/op it hardly moves when other
// processes share the machine, so ratios stay readable on a busy one.
func reportCPU(b *testing.B, start time.Duration) {
	b.ReportMetric(float64(selfCPU()-start)/float64(b.N), "cpu-ns/op")
}
