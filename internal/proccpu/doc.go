// Package proccpu reads CPU time (user plus system) of this process, its
// children and other processes of the machine, so that a cost can be
// checked against a bound in CPU time, which a loaded machine hardly
// changes, rather than in wall time, which it stretches without limit.
// It is Linux's /proc and getrusage; elsewhere the readers report
// ErrUnsupported and callers fall back to the wall clock.
package proccpu
