package sqlite

/*
#cgo CFLAGS: -O2
#cgo LDFLAGS: -lm
#include <stdlib.h>
#include "capi.h"
*/
import "C"

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"unsafe"

	// The SQLite amalgamation (3.54.1) that mattn/go-sqlite3 compiles. Only
	// its object code is used: this package binds SQLite's C API itself and
	// never uses mattn's database/sql driver, whose row scanner turns TEXT
	// in DATE columns into time.Time and BOOLEAN into bool.
	_ "github.com/mattn/go-sqlite3"
)

// Result codes (primary) and open flags from sqlite3.h.
const (
	codeOK        = 0
	codeInterrupt = 9
	codeNoMem     = 7
	codeRow       = 100
	codeDone      = 101

	openReadOnly  = 0x00000001
	openReadWrite = 0x00000002
	openURI       = 0x00000040
	openNoMutex   = 0x00008000
	openExResCode = 0x02000000
)

// Bounds of the functions bounded.c overrides, for docs and tests.
const (
	PatternMaxCost = int64(C.SG_PATTERN_MAX_COST)
	SearchMaxCost  = int64(C.SG_SEARCH_MAX_COST)
	TrimMaxCost    = int64(C.SG_TRIM_MAX_COST)
)

// sqliteError is an error SQLite reported, with its extended result code.
type sqliteError struct {
	code int // extended
	msg  string
}

func (e *sqliteError) Error() string { return e.msg }

// primary is the primary result code (the low byte of the extended one).
func (e *sqliteError) primary() int { return e.code & 0xff }

// errNoMem is wrapped when SQLite ran out of memory (the heap limit).
var errNoMem = errors.New("sqlite: out of memory")

func (e *sqliteError) Is(target error) bool { return target == errNoMem && e.primary() == codeNoMem }

// dbError is the connection's last error.
func dbError(db *C.sqlite3, rc C.int) error {
	msg := C.GoString(C.sqlite3_errmsg(db))
	if msg == "" || msg == "not an error" {
		msg = C.GoString(C.sqlite3_errstr(rc))
	}
	code := int(C.sqlite3_extended_errcode(db))
	if code&0xff != int(rc)&0xff {
		code = int(rc)
	}
	return &sqliteError{code: code, msg: msg}
}

// conn is one SQLite connection and its guard. A conn is used by one
// goroutine at a time; only guard.cancel is written from elsewhere.
type conn struct {
	db    *C.sqlite3
	guard *C.sg_guard // C memory: the progress handler holds a pointer to it
}

// openDB opens uri with flags. Every connection gets the math functions;
// sandboxed ones also get a guard and the bounded functions, and become
// read-only to SQL once lockDown installs the authorizer.
func openDB(uri string, flags int, sandboxed bool) (*conn, error) {
	curi := C.CString(uri)
	defer C.free(unsafe.Pointer(curi))
	var db *C.sqlite3
	rc := C.sg_open(curi, C.int(flags|openExResCode), &db)
	if rc != codeOK {
		var err error = &sqliteError{code: int(rc), msg: C.GoString(C.sqlite3_errstr(rc))}
		if db != nil {
			err = dbError(db, rc)
			C.sqlite3_close_v2(db)
		}
		return nil, err
	}
	c := &conn{db: db}
	if rc := C.sg_register_math(db); rc != codeOK {
		err := dbError(db, rc) // before close frees db
		c.close()
		return nil, fmt.Errorf("register math functions: %w", err)
	}
	if !sandboxed {
		return c, nil
	}
	c.guard = newGuard()
	if c.guard == nil {
		c.close()
		return nil, errNoMem
	}
	c.guard.db = db
	if rc := C.sg_register_bounded(db, c.guard); rc != codeOK {
		err := dbError(db, rc) // before close frees db
		c.close()
		return nil, fmt.Errorf("register bounded functions: %w", err)
	}
	return c, nil
}

// lockDown installs the authorizer and the progress handler: from now on
// the connection runs nothing but reads, not even the PRAGMAs that
// configured it.
func (c *conn) lockDown() error {
	if rc := C.sg_sandbox(c.db, c.guard, checkEvery); rc != codeOK {
		return fmt.Errorf("authorizer: %w", dbError(c.db, rc))
	}
	return nil
}

func (c *conn) close() error {
	var err error
	if c.db != nil {
		if rc := C.sqlite3_close_v2(c.db); rc != codeOK {
			err = &sqliteError{code: int(rc), msg: C.GoString(C.sqlite3_errstr(rc))}
		}
		c.db = nil
	}
	if c.guard != nil {
		freeGuard(c.guard)
		c.guard = nil
	}
	return err
}

// dbConfig sets a boolean db_config option and returns its new value.
func (c *conn) dbConfig(op int, on bool) (bool, error) {
	var got C.int
	v := C.int(0)
	if on {
		v = 1
	}
	if rc := C.sg_db_config(c.db, C.int(op), v, &got); rc != codeOK {
		return false, dbError(c.db, rc)
	}
	return got != 0, nil
}

func (c *conn) limit(id, v int) { C.sqlite3_limit(c.db, C.int(id), C.int(v)) }

// exec runs trusted SQL, possibly several statements.
func (c *conn) exec(sql string) error {
	csql := C.CString(sql)
	defer C.free(unsafe.Pointer(csql))
	var errmsg *C.char
	rc := C.sqlite3_exec(c.db, csql, nil, nil, &errmsg)
	if rc != codeOK {
		msg := C.GoString(errmsg)
		C.sqlite3_free(unsafe.Pointer(errmsg))
		err := dbError(c.db, rc)
		if msg != "" {
			err.(*sqliteError).msg = msg
		}
		return err
	}
	return nil
}

// stmt is a prepared statement.
type stmt struct {
	c     *conn
	s     *C.sqlite3_stmt
	cells *C.sg_cell
	ncol  int
}

// prepare compiles the first statement of sql and returns the unparsed
// rest. A nil stmt with a nil error means sql held no statement.
func (c *conn) prepare(sql string) (*stmt, string, error) {
	csql := C.CString(sql)
	defer C.free(unsafe.Pointer(csql))
	var s *C.sqlite3_stmt
	var tail *C.char
	rc := C.sqlite3_prepare_v2(c.db, csql, C.int(len(sql)+1), &s, &tail)
	if rc != codeOK {
		return nil, "", dbError(c.db, rc)
	}
	rest := ""
	if tail != nil {
		off := uintptr(unsafe.Pointer(tail)) - uintptr(unsafe.Pointer(csql))
		if off < uintptr(len(sql)) {
			rest = sql[off:]
		}
	}
	if s == nil {
		return nil, rest, nil
	}
	st := &stmt{c: c, s: s, ncol: int(C.sqlite3_column_count(s))}
	return st, rest, nil
}

func (st *stmt) close() {
	if st.cells != nil {
		C.free(unsafe.Pointer(st.cells))
		st.cells = nil
	}
	if st.s != nil {
		C.sqlite3_finalize(st.s)
		st.s = nil
	}
}

func (st *stmt) readOnly() bool { return C.sqlite3_stmt_readonly(st.s) != 0 }

func (st *stmt) columnName(i int) string { return C.GoString(C.sqlite3_column_name(st.s, C.int(i))) }

func (st *stmt) bindText(i int, v string) error {
	cv := C.CString(v)
	defer C.free(unsafe.Pointer(cv))
	// SQLITE_TRANSIENT: SQLite copies the text.
	if rc := C.sqlite3_bind_text(st.s, C.int(i), cv, C.int(len(v)), C.SQLITE_TRANSIENT); rc != codeOK {
		return dbError(st.c.db, rc)
	}
	return nil
}

// next steps to the next row. It returns false at the end or on error;
// the row's cells are then in st.row until the next call.
func (st *stmt) next() (bool, error) {
	if st.cells == nil && st.ncol > 0 {
		st.cells = (*C.sg_cell)(C.calloc(C.size_t(st.ncol), C.size_t(unsafe.Sizeof(C.sg_cell{}))))
		if st.cells == nil {
			return false, errNoMem
		}
	}
	rc := C.sg_step_row(st.s, C.int(st.ncol), st.cells, st.c.guard)
	switch rc {
	case codeRow:
		return true, nil
	case codeDone:
		return false, nil
	}
	return false, dbError(st.c.db, rc)
}

// cellsOf views the current row's cells.
func (st *stmt) row() []C.sg_cell {
	if st.ncol == 0 {
		return nil
	}
	return unsafe.Slice(st.cells, st.ncol)
}

// text and blob copy a cell's bytes into Go memory.
func cellString(c *C.sg_cell) string {
	if c.len == 0 {
		return ""
	}
	return C.GoStringN((*C.char)(c.p), C.int(c.len))
}

// interruptOn interrupts c's running statement when ctx is done, for the
// trusted connections (Create, Describe) that have no guard. The returned
// stop must be called before c is closed; after it returns no interrupt
// can reach c.
func (c *conn) interruptOn(ctx context.Context) (stop func()) {
	var mu sync.Mutex
	live := true
	db := c.db
	cancel := context.AfterFunc(ctx, func() {
		mu.Lock()
		defer mu.Unlock()
		if live {
			C.sqlite3_interrupt(db)
		}
	})
	return func() {
		cancel()
		mu.Lock()
		live = false
		mu.Unlock()
	}
}

const patternCostPerStep = int64(C.SG_PATTERN_COST_PER_STEP)

// SGAllocBytesPerStep is how many bytes allocated for a statement count as
// one step of its budget (alloc.c).
const SGAllocBytesPerStep = int64(C.SG_ALLOC_BYTES_PER_STEP)
