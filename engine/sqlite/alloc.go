package sqlite

// #include <stdlib.h>
// #include "capi.h"
import "C"

import (
	"sync"
	"unsafe"
)

// Guards are C memory that sqlgym's allocator (alloc.c) writes to when a
// block allocated for a statement is freed. A block that outlived its
// connection would write into freed memory, so guards are never freed:
// a closed connection's guard is kept for the next one, where such a
// stray write can only skew one statement's count. There are never more
// than the connections open at once.
var guards struct {
	sync.Mutex
	free []*C.sg_guard
}

func newGuard() *C.sg_guard {
	guards.Lock()
	defer guards.Unlock()
	if n := len(guards.free); n > 0 {
		g := guards.free[n-1]
		guards.free = guards.free[:n-1]
		*g = C.sg_guard{}
		return g
	}
	return (*C.sg_guard)(C.calloc(1, C.size_t(unsafe.Sizeof(C.sg_guard{}))))
}

func freeGuard(g *C.sg_guard) {
	guards.Lock()
	defer guards.Unlock()
	guards.free = append(guards.free, g)
}
