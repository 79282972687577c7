// Package root assembles sqlgym's command tree (NewRoot, Main) from the
// command groups (run, data, serve, round) and holds the version command.
// Its tests drive the whole tree in-process through Main, as a user would,
// and pin every command's --help and --json in testdata.
package root
