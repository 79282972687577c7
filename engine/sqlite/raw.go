package sqlite

/*
#include <stdlib.h>
#include "capi.h"
*/
import "C"

import (
	"fmt"
	"path/filepath"
	"time"
	"unsafe"
)

// Raw is C SQLite with no sandbox beyond opening the file read-only and
// immutable: no authorizer, no step budget, no limits, no pool, SQLite's
// built-in LIKE, GLOB, instr, replace and trim (plus the math functions).
// It exists FOR BENCHMARKS ONLY, as the baseline a verifier's time is
// compared with ("C SQLite running each distinct query once"). Never give
// it untrusted SQL. A Raw is not safe for concurrent use.
type Raw struct {
	c    *conn
	path string
}

// OpenRaw opens the SQLite file at path for benchmarks (see Raw).
func OpenRaw(path string) (*Raw, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("open raw sqlite %s: %w", path, err)
	}
	c, err := openDB(fileURI(abs, false), openReadOnly|openURI|openNoMutex, false)
	if err != nil {
		return nil, fmt.Errorf("open raw sqlite %s: %w", path, err)
	}
	if err := probe(c); err != nil {
		c.close()
		return nil, fmt.Errorf("open raw sqlite %s: %w", path, err)
	}
	return &Raw{c: c, path: abs}, nil
}

// Count runs the first statement of sql to the end in one C call,
// reading every cell of every row (text and blobs in place, not copied to
// Go), and returns the number of rows.
func (r *Raw) Count(sql string) (int, error) {
	m, err := r.Measure(sql)
	return int(m.Rows), err
}

// Measurement is one statement's run on a Raw connection.
type Measurement struct {
	Rows    int64
	VMSteps int64         // SQLITE_STMTSTATUS_VM_STEP at the end
	CPU     time.Duration // CPU time of the thread that ran it, prepare to finalize
}

// Measure is Count that also reports VM steps and CPU time. CPU time,
// unlike wall time, hardly depends on how loaded the machine is, which is
// what the budget's calibration needs.
func (r *Raw) Measure(sql string) (Measurement, error) {
	if r.c == nil {
		return Measurement{}, ErrClosed
	}
	csql := C.CString(sql)
	defer C.free(unsafe.Pointer(csql))
	var rows, steps, cpu C.int64_t
	// The thread's CPU clock is only meaningful if the whole call stays
	// on one thread, which one cgo call does.
	rc := C.sg_measure(r.c.db, csql, &rows, &steps, &cpu)
	m := Measurement{Rows: int64(rows), VMSteps: int64(steps), CPU: time.Duration(cpu)}
	if rc != codeOK {
		return m, dbError(r.c.db, rc)
	}
	return m, nil
}

// Close closes the connection.
func (r *Raw) Close() error {
	if r.c == nil {
		return nil
	}
	err := r.c.close()
	r.c = nil
	return err
}

// ThreadCPU is the CPU time the calling OS thread has used: with
// runtime.LockOSThread, what one goroutine's statements cost, for
// calibrating the sandbox's charges (tests and benchmarks only).
func ThreadCPU() time.Duration { return time.Duration(C.sg_thread_cpu_ns()) }
