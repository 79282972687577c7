// Package rundir owns the on-disk form of an evaluation run: a folder with
// samples.jsonl (one line per finished sample, appended as samples finish,
// never rewritten), manifest.json (what was run, with which settings and
// data) and summary.json (the headline numbers). Reading tolerates a torn
// last line, so a run killed mid-write resumes without losing or doubling
// a sample. Eval writes runs; report, compare, power and band read them.
package rundir
