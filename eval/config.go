package eval

import (
	"context"
	"errors"
	"io"
	"time"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/agent"
	"github.com/sqlgym/sqlgym/link"
	"github.com/sqlgym/sqlgym/model"
	"github.com/sqlgym/sqlgym/prompt"
	"github.com/sqlgym/sqlgym/rundir"
	"github.com/sqlgym/sqlgym/verify"
)

// Defaults for a Config's zero fields.
const (
	DefaultConcurrency = 64
	// PreviewRows is how many rows of the prediction's and the gold's
	// results a failed sample keeps.
	PreviewRows = 5
)

// Databases is what a run needs of its databases: the verifier's access,
// and the engine by name to load a schema for the prompt.
// *catalog.Catalog implements it.
type Databases interface {
	verify.Databases
	Engine(ctx context.Context, name string) (sqlgym.Engine, error)
}

// Config is one evaluation run.
type Config struct {
	// Out is the run folder.
	Out string
	// Tasks are the tasks to sample, already narrowed to the split.
	Tasks []sqlgym.Task
	// TasksFile and TasksHash identify the task file; Split names the
	// split the tasks were taken from ("holdout", "train" or "all").
	TasksFile string
	TasksHash string
	Split     string

	DBs Databases
	// PostgresSchema is the --pg-schema the databases were opened with; it
	// enters PostgreSQL digests.
	PostgresSchema string

	// Policy draws completions. When Decoding.Seed is set and Reseed is
	// not nil, each sample is drawn alone by Reseed(seed + sample index),
	// so a resumed run asks for exactly what an uninterrupted one would.
	Policy model.Policy
	Reseed func(seed int) model.Policy
	// Agent, when set, plays each sample as a multi-turn episode (package
	// agent) with Actor instead of asking Policy for a completion; Policy
	// may then be nil. Its settings enter the manifest and the
	// configuration hash.
	Agent *agent.Config
	Actor agent.Actor
	// Positional says completion i of every Complete call is the task's
	// sample i, whatever k is (the baseline draws sample i from a seed,
	// the task and i). Missing samples are then taken from one call for
	// all of them up to the highest missing index.
	Positional bool
	// PolicyKind ("openai", "baseline"), Model and BaseURL are recorded in
	// the manifest. BaseURL is not part of the configuration hash: the same
	// model served elsewhere may continue a run.
	PolicyKind string
	Model      string
	BaseURL    string
	// ModelReplicas are the model servers' URLs when the run samples
	// from several replicas of one model (model.Pool); recorded in the
	// manifest, outside the configuration hash like BaseURL.
	ModelReplicas []string
	Decoding      rundir.Decoding

	// Verify configures the verifier (mode, rewards, limits).
	Verify verify.Config
	// Template renders prompts; nil means prompt.Default().
	Template *prompt.Template
	// Schema chooses each prompt's schema (package link); nil shows every
	// table, as runs made before linking did. Its mode and settings enter
	// the manifest and the configuration hash.
	Schema *link.Source

	// Hint, when HintShape, appends the expected result's shape (column
	// count and names, row count, from the gold's result) to each prompt;
	// RetryOf names the run whose failed tasks are asked again. Both enter
	// the manifest and the configuration hash.
	Hint    string
	RetryOf string

	// Concurrency bounds the tasks being sampled at once (default 64).
	Concurrency int

	// Version and GitCommit describe the sqlgym binary, for the manifest
	// and the ledger.
	Version   string
	GitCommit string
	// Command is the command line, for the ledger. Ledger is the ledger
	// file to append to at the end ("" for none).
	Command []string
	Ledger  string

	// Progress receives a progress line about every ProgressEvery (default
	// one second); nil for none.
	Progress      io.Writer
	ProgressEvery time.Duration
	// Retries, when set, is where the model client notes its retries
	// (model.Config.OnRetry); the progress line shows their count and
	// last cause.
	Retries *RetryLog
}

func (c *Config) withDefaults() error {
	if c.Out == "" {
		return errors.New("eval: no run folder")
	}
	if c.DBs == nil || c.Policy == nil && (c.Agent == nil || c.Actor == nil) {
		return errors.New("eval: databases and a policy (or an agent and its actor) are required")
	}
	if c.Agent != nil {
		a, err := c.Agent.WithDefaults()
		if err != nil {
			return err
		}
		c.Agent = &a
		if c.Template == nil {
			c.Template = agent.DefaultTemplate(a.Protocol)
		}
	}
	if c.Decoding.K < 1 {
		return sqlgym.Userf("give --k 1 or more", "--k %d: at least one sample per task", c.Decoding.K)
	}
	if len(c.Tasks) == 0 {
		return sqlgym.Userf("check --tasks and --split (sqlgym split marks tasks train or holdout)", "no tasks to evaluate")
	}
	if c.Template == nil {
		c.Template = prompt.Default()
	}
	if c.Concurrency <= 0 {
		c.Concurrency = DefaultConcurrency
	}
	if c.ProgressEvery <= 0 {
		c.ProgressEvery = time.Second
	}
	if c.Verify.Previews <= 0 {
		c.Verify.Previews = PreviewRows
	}
	// Every failed sample keeps its failure class: reports, compare and
	// curate read it.
	c.Verify.Failures = true
	return nil
}
