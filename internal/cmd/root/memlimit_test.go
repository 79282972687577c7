package root

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"runtime/debug"
	"testing"

	"github.com/sqlgym/sqlgym/shopdb"
	"github.com/sqlgym/sqlgym/verify"

	"github.com/sqlgym/sqlgym/internal/cmd/cmdkit"
)

// TestVerifyBoundsTheGoHeap: `verify` sets Go's soft memory limit from
// its byte budget, so a batch of large results cannot double the heap
// between collections (docs/verifier.md, "Memory bounds").
func TestVerifyBoundsTheGoHeap(t *testing.T) {
	if os.Getenv("GOMEMLIMIT") != "" {
		t.Skip("GOMEMLIMIT is set: verify leaves the user's limit alone")
	}
	prev := debug.SetMemoryLimit(math.MaxInt64)
	defer debug.SetMemoryLimit(prev)
	t.Setenv("SQLGYM_CACHE", t.TempDir())
	tasks, err := shopdb.Tasks()
	if err != nil {
		t.Fatal(err)
	}
	line, _ := json.Marshal(map[string]string{"task_id": tasks[0].ID, "sql": tasks[0].SQL})
	preds := writeFile(t, "preds.jsonl", fmt.Sprintln(string(line)))
	if code, _, errOut := run(t, "verify", "--tasks", "shop", "--predictions", preds, "--json"); code != cmdkit.ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	budget := verify.New(nil, nil, verify.Config{}).Config().Budget.Limit()
	if got, want := debug.SetMemoryLimit(-1), cmdkit.GoHeapLimit(budget); got != want {
		t.Errorf("Go memory limit after verify: %d, want %d (twice the %d-byte budget plus 128 MiB)", got, want, budget)
	}
}

// TestServeBoundsTheGoHeap: `serve` sets Go's soft memory limit from the
// bytes the server holds at most (results, bodies, the cache) before it
// listens; an address it cannot listen on ends the command just after.
func TestServeBoundsTheGoHeap(t *testing.T) {
	if os.Getenv("GOMEMLIMIT") != "" {
		t.Skip("GOMEMLIMIT is set: serve leaves the user's limit alone")
	}
	prev := debug.SetMemoryLimit(math.MaxInt64)
	defer debug.SetMemoryLimit(prev)
	t.Setenv("SQLGYM_CACHE", t.TempDir())
	code, _, _ := run(t, "serve", "--tasks", "shop", "--addr", "256.0.0.1:0", "--result-mb", "100", "--body-mb", "50", "--cache-mb", "10")
	if code == cmdkit.ExitOK {
		t.Fatal("serve on an address it cannot listen on exited 0")
	}
	if got, want := debug.SetMemoryLimit(-1), cmdkit.GoHeapLimit(160<<20); got != want {
		t.Errorf("Go memory limit after serve: %d, want %d (twice the 160 MiB it holds plus 128 MiB)", got, want)
	}
}
