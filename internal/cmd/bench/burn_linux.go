package bench

import "syscall"

// burnerAttr makes the kernel kill a burner when sqlgym dies, even by
// SIGKILL, when no deferred stop can run.
func burnerAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
