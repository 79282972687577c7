package sqlite

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/sqlgym/sqlgym"
)

// A statement waiting for the heap gate (held alone by an out-of-memory
// re-run) stops waiting when its caller's context ends, with the caller's
// error: the engine contract, which an RWMutex could not keep.
func TestHeapGateWaitEndsWithTheCaller(t *testing.T) {
	eng, _ := newDB(t, Options{}, `CREATE TABLE t (a INTEGER)`, `INSERT INTO t VALUES (1)`)
	release, err := ownHeap(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, err := eng.Query(ctx, `SELECT a FROM t`, sqlgym.Limits{})
		done <- err
	}()
	select {
	case err = <-done:
	case <-time.After(30 * time.Second):
		release()
		t.Fatal("the query kept waiting for the heap gate after its deadline")
	}
	release()
	var ee *sqlgym.ExecError
	if !errors.Is(err, context.DeadlineExceeded) || errors.Is(err, sqlgym.ErrTimeout) || errors.As(err, &ee) {
		t.Fatalf("got %T %v, want the caller's deadline only", err, err)
	}
	if _, err := eng.Query(context.Background(), `SELECT a FROM t`, sqlgym.Limits{}); err != nil {
		t.Fatalf("after the gate was given back: %v", err)
	}
}
