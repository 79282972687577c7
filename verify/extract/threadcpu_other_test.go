//go:build !linux

package extract

import "time"

// onThreadCPU falls back to wall time where the thread's CPU time is not
// at hand (CI runs on Linux, where it is).
func onThreadCPU(f func()) time.Duration {
	start := time.Now()
	f()
	return time.Since(start)
}
