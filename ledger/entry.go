package ledger

import (
	"time"

	"github.com/sqlgym/sqlgym/rundir"
)

// Kinds of entry.
const (
	KindEval    = "eval"
	KindCompare = "compare"
	// KindCurate is a training set `sqlgym curate` wrote.
	KindCurate = "curate"
)

// Entry is one line of the ledger.
type Entry struct {
	Time time.Time `json:"time"`
	// Kind is KindEval or KindCompare.
	Kind string `json:"kind"`
	// Command is the command line that produced the entry.
	Command []string `json:"command"`
	// GitCommit is the commit the sqlgym binary was built from, as the
	// caller read it from the build info ("" when unknown).
	GitCommit  string           `json:"git_commit,omitempty"`
	ConfigHash string           `json:"config_hash,omitempty"`
	TasksHash  string           `json:"tasks_hash,omitempty"`
	Split      string           `json:"split,omitempty"`
	Decoding   *rundir.Decoding `json:"decoding,omitempty"`
	// Output is the run folder an eval wrote, or the file a compare wrote
	// (its HTML page), or "" for a compare printed only to the terminal.
	Output string `json:"output,omitempty"`
	// Inputs names the runs a comparison read, by side ("base", "treat").
	Inputs map[string][]string `json:"inputs,omitempty"`
	// Headline holds the numbers a reader quotes: "pass@1", "pass@1.lo",
	// "delta", "delta.lo", "p_value", ... Values that could not be computed
	// (NaN) are left out, since JSON has no NaN.
	Headline map[string]float64 `json:"headline,omitempty"`
	// Verdict is a comparison's verdict ("proven gain", ...).
	Verdict string `json:"verdict,omitempty"`
}
