//go:build !unix

package bench

import "time"

// selfCPU is unknown off Unix; the reports then show 0 CPU time.
func selfCPU() time.Duration { return 0 }
