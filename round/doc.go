// Package round owns the outer loop of RL post-training, one round per
// call: roll the current model out on the train split, keep the band of
// tasks it solves sometimes, export them for the user's trainer, run the
// trainer, load the adapter it wrote into the model server, score the
// held-out split on both sides through that same server, and decide with
// a paired comparison whether the new checkpoint is the best.
//
// It trains nothing and scores nothing itself: every sqlgym step is the
// command a user would type (eval, band, export, compare, serve), run
// in-process by Commands (internal/cmd/round fills each command's options struct
// from a typed step and calls its run function; --dry-run prints the line
// those options make), so a round's numbers come from the same verifier,
// prompt renderer and ledger as anyone's. The
// trainer is the user's command line. What this package adds is the
// folder layout, the order of the steps, a marker per finished step so
// a round killed at any point resumes where it stopped, and the decision.
package round
