package testenv

import (
	"os"
	"testing"
)

// Slow skips a test that takes more than a few seconds unless
// SQLGYM_SLOW_TESTS=1, which .ci/run sets: the README's `go test ./...`
// stays within minutes on two cores while CI still runs everything. why
// says what the test costs, so a reader knows what the skip leaves out.
func Slow(t testing.TB, why string) {
	t.Helper()
	if os.Getenv("SQLGYM_SLOW_TESTS") != "1" {
		t.Skip("slow test (" + why + "): run with SQLGYM_SLOW_TESTS=1")
	}
}
