// Package cli holds sqlgym's cobra commands, one file each. Every command has
// an options struct and a run function that takes its IO streams, so tests
// drive commands in-process and assert on stdout and stderr.
package root
