// Package round holds the round command and RoundCommands, which runs a
// round's steps (eval, band, export, compare, serve) by filling each
// command's options struct and calling its run function in-process, so a
// renamed flag or field breaks the build, not a round.
package round
