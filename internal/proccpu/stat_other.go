//go:build !linux

package proccpu

import "time"

type stat struct{ cpu time.Duration }

func readStat(int) (stat, error) { return stat{}, ErrUnsupported }

// Self is this process's CPU time where it can be read; 0 elsewhere.
func Self() time.Duration { return 0 }

// Tree reports ErrUnsupported off Linux.
func Tree() (time.Duration, error) { return 0, ErrUnsupported }

// ByName reports ErrUnsupported off Linux.
func ByName(...string) ([]int, error) { return nil, ErrUnsupported }
