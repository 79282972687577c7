package cmdkit

import (
	"os"
	"runtime/debug"
)

// BoundGoHeap sets the Go runtime's soft memory limit from the verifier's
// byte budget (serve: every byte budget it holds, Server.HeldBytes),
// unless the user set GOMEMLIMIT. The budget bounds the
// result bytes a batch holds at once, but with the default GOGC the Go
// heap grows to twice what was live at the last collection before the
// next one, and on two busy cores a collection runs for seconds while
// results keep arriving: 30 answers of 45 MB each peaked at 1.4 GB of
// RSS with a 256 MiB budget. Near the limit the collector runs sooner
// and harder instead (docs/verifier.md, "Memory").
func BoundGoHeap(budget int64) {
	if os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	debug.SetMemoryLimit(GoHeapLimit(budget))
}

// GoHeapLimit is twice the budget (a result and what comparing it
// builds) plus room for the rest of the process.
func GoHeapLimit(budget int64) int64 { return 2*budget + 128<<20 }
