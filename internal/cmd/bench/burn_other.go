//go:build !linux

package bench

import "syscall"

// burnerAttr has no parent-death signal off Linux; burners there stop
// when they see their parent change, or after --for.
func burnerAttr() *syscall.SysProcAttr { return nil }
