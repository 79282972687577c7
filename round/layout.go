package round

import (
	"fmt"
	"path/filepath"
)

// The steps of a round, in order. Each leaves a marker when it is done
// (see marker); a step without one is run again from its start.
const (
	StepRollout = "rollout"
	StepBand    = "band"
	StepExport  = "export"
	StepTrain   = "train"
	StepServe   = "serve"
	StepScore   = "score"
	StepDecide  = "decide"
)

// Steps lists the steps in the order a round runs them.
var Steps = []string{StepRollout, StepBand, StepExport, StepTrain, StepServe, StepScore, StepDecide}

// Layout is where a round's files go: rounds/NNN/{rollout, band.jsonl,
// train.jsonl, train.log, adapter, score-R, decision.json}, and the base
// model's held-out scores in rounds/base/score-R, made once and shared by
// every round.
type Layout struct {
	Root string // the rounds folder
	N    int    // the round number, from 1
}

// Dir is the round's folder.
func (l Layout) Dir() string { return filepath.Join(l.Root, fmt.Sprintf("%03d", l.N)) }

func (l Layout) Rollout() string  { return filepath.Join(l.Dir(), "rollout") }
func (l Layout) Band() string     { return filepath.Join(l.Dir(), "band.jsonl") }
func (l Layout) Adapter() string  { return filepath.Join(l.Dir(), "adapter") }
func (l Layout) TrainLog() string { return filepath.Join(l.Dir(), "train.log") }
func (l Layout) Decision() string { return filepath.Join(l.Dir(), "decision.json") }

// Dataset is the exported training file; its extension is the format's.
func (l Layout) Dataset(format string) string {
	if format == "verl" {
		return filepath.Join(l.Dir(), "train.parquet")
	}
	return filepath.Join(l.Dir(), "train.jsonl")
}

// Score is the folder of the round checkpoint's r-th held-out run (from 1).
func (l Layout) Score(r int) string { return filepath.Join(l.Dir(), fmt.Sprintf("score-%d", r)) }

// BaseScore is the base model's r-th held-out run.
func BaseScore(root string, r int) string {
	return filepath.Join(root, "base", fmt.Sprintf("score-%d", r))
}

// marker is the file whose presence says a step finished.
func (l Layout) marker(step string) string { return filepath.Join(l.Dir(), ".steps", step+".done") }

// LoRAName is the name the round's adapter is served under.
func LoRAName(n int) string { return fmt.Sprintf("sqlgym-round-%03d", n) }
