// Package curate owns the training sets chosen by a model's failures: the
// supervised set of `sqlgym curate sft` (failed tasks, a replay share of
// solved ones, extra examples for the most frequent failure classes, with
// gold or the model's own verified answers as targets, or correct agent
// episodes as multi-turn examples) and the preference pairs of `sqlgym
// curate dpo` (the model's own most frequent right and wrong answers, gold
// as chosen only under a cap). The selection rules are pure functions over
// per-task statistics (Stats) so that tests can pin them; Build renders
// the prompts, executes every target again through the verifier, writes
// the rows in a trainer's format, and records a manifest.
package curate
