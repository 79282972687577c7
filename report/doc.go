// Package report reads run folders (package rundir) and says what they
// show: the headline pass@1, pass@k and pass^k with their intervals, the
// outcome breakdown, the difficulty histogram, per-database and
// per-complexity tables and the failures, as a terminal table, Markdown for
// a pull request or a self-contained HTML page. It also owns the honest
// comparison of runs (Compare: paired over tasks, replicate runs averaged,
// mismatched runs refused) and Summarize, the one place summary.json is
// computed, so a report and the eval that wrote the run always agree.
//
// Counting rule: gold_error and infra_error samples are nobody's answer.
// They are excluded from a task's n_i (never counted as wrong) and shown as
// missing, together with samples that were never written.
//
// All arithmetic is package stats'.
package report
