//go:build !unix

package verify_test

import (
	"testing"
	"time"
)

// selfCPU is not measured here; cpu-ns/op is left out.
func selfCPU() time.Duration { return 0 }

func reportCPU(*testing.B, time.Duration) {}
