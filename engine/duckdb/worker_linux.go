package duckdb

import (
	"bytes"
	"errors"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// workersSupported: worker mode needs RLIMIT_DATA as Linux (4.7 and later)
// counts it, every private writable mapping, which covers malloc's mmap
// arenas; elsewhere DuckDB runs in-process.
const workersSupported = true

// workerExecutable is this very binary, by a path that still works after
// the file on disk was replaced or removed (an upgrade while serving).
func workerExecutable() (string, error) { return "/proc/self/exe", nil }

// setDataLimit caps the worker's data segment. RLIMIT_DATA rather than
// RLIMIT_AS: address-space reservations (the Go runtime's, thread stacks'
// guard pages, DuckDB's mapped code) would make an AS limit far above the
// memory really usable, or fail at startup.
func setDataLimit(n uint64) error {
	if n == 0 {
		return nil
	}
	return syscall.Setrlimit(syscall.RLIMIT_DATA, &syscall.Rlimit{Cur: n, Max: n})
}

// processCPU is the CPU time (user and system) this process has used.
func processCPU() (time.Duration, error) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, err
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), nil
}

// childCPU is the CPU time (user and system) process pid has used, from
// /proc/PID/stat (fields 14 and 15, in clock ticks of 1/100 s: the kernel's
// USER_HZ on every Linux platform Go supports).
func childCPU(pid int) (time.Duration, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, err
	}
	// The command name (field 2) is in parentheses and may hold spaces.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, errors.New("unreadable /proc stat")
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 13 {
		return 0, errors.New("short /proc stat")
	}
	u, err1 := strconv.ParseInt(f[11], 10, 64)
	s, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, errors.New("unreadable /proc stat times")
	}
	return time.Duration(u+s) * 10 * time.Millisecond, nil
}

// crashSelf sends this process SIGSEGV, as a crash would (tests only),
// and waits for it: a signal from kill arrives asynchronously, and a
// worker that went on would answer the statement it was to crash on (the
// crash test saw a result instead of the crash, now and then).
func crashSelf() {
	_ = syscall.Kill(os.Getpid(), syscall.SIGSEGV)
	for {
		time.Sleep(time.Second)
	}
}
