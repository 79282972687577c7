// Package eval runs a benchmark: it samples each task k times through a
// model.Policy, verifies every sample with the same verify.Verifier that
// `sqlgym verify` and the reward server use, and writes the run folder
// (package rundir) as samples finish.
//
// A run is resumable and crash-safe: samples are appended one line each as
// they are judged, so running the same configuration again (after a kill -9
// too) draws only the samples that are not there yet. A folder whose
// manifest holds another configuration hash is refused. A sample the model
// server could not produce is never scored: it stays missing, and a rerun
// fills it. A sample the database could not judge (infra_error) keeps its
// completion and is judged again on the next run, without resampling.
//
// The summary (summary.json) is report.Summarize's, so eval and `sqlgym
// report` cannot disagree.
package eval
