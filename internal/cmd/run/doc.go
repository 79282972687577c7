// Package run holds the commands about evaluation runs: eval (with its
// agent, retry and model-pool parts), demo, report, compare, power, runs.
// Each command has an options struct and a run function taking its IO
// streams; round calls EvalCmd, RunEval, CompareCmd and CompareRuns.
package run
