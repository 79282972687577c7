package round

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/stats"
)

// Config is a round.yaml: everything a round needs, fixed before the
// first round so that every round is run, scored and decided alike.
type Config struct {
	// Dir holds the round folders (default "rounds", relative to the
	// config file's folder).
	Dir string `yaml:"dir"`
	// Tasks is the task file with train and held-out splits (sqlgym
	// split), or "shop".
	Tasks string `yaml:"tasks"`
	// DB and DBDir name the databases, as --db and --db-dir do.
	DB       []string `yaml:"db"`
	DBDir    string   `yaml:"db_dir"`
	PGSchema string   `yaml:"pg_schema"`
	Mode     string   `yaml:"mode"` // comparison mode (default multiset)

	Model   ModelConfig   `yaml:"model"`
	Rollout RolloutConfig `yaml:"rollout"`
	Band    BandConfig    `yaml:"band"`
	Export  ExportConfig  `yaml:"export"`
	Train   TrainConfig   `yaml:"train"`
	Serve   ServeConfig   `yaml:"serve"`
	Score   ScoreConfig   `yaml:"score"`
	Decide  DecideConfig  `yaml:"decide"`

	// base is the folder relative paths are read from.
	base string
}

// ModelConfig is the model server every eval of every round goes through.
type ModelConfig struct {
	BaseURL     string  `yaml:"base_url"` // OpenAI-compatible, e.g. http://127.0.0.1:8000/v1
	Name        string  `yaml:"name"`     // the base model's name at the server
	APIKeyEnv   string  `yaml:"api_key_env"`
	Temperature float64 `yaml:"temperature"`
	MaxTokens   int     `yaml:"max_tokens"`
	Seed        int     `yaml:"seed"`
	Extra       string  `yaml:"extra"` // JSON object merged into every request
	Concurrency int     `yaml:"concurrency"`
}

// RolloutConfig is the train-split eval that finds the band.
type RolloutConfig struct {
	K int `yaml:"k"` // samples per task (default 8)
}

// BandConfig bounds the band a round trains on.
type BandConfig struct {
	// MinTasks stops the round when fewer tasks are in the band: too
	// few to train on (default 16).
	MinTasks int `yaml:"min_tasks"`
}

// ExportConfig is the dataset format for the trainer.
type ExportConfig struct {
	Format string `yaml:"format"` // trl or verl (default trl)
}

// TrainConfig is the user's trainer.
type TrainConfig struct {
	// Command is the trainer's command line, one argument per item, with
	// placeholders (see Placeholders).
	Command []string `yaml:"command"`
	// Env adds environment variables, placeholders allowed.
	Env map[string]string `yaml:"env"`
	// ServeRewards starts `sqlgym serve` on the round's band for the
	// trainer's reward calls; {reward_url} is its base URL.
	ServeRewards bool `yaml:"serve_rewards"`
}

// ServeConfig says how a trained adapter reaches the model server.
type ServeConfig struct {
	// LoadLoRA loads the adapter into the running server with vLLM's
	// POST /v1/load_lora_adapter (the server needs
	// VLLM_ALLOW_RUNTIME_LORA_UPDATING=True and --enable-lora).
	LoadLoRA bool `yaml:"load_lora"`
	// Command, instead, is run after training and must leave a server
	// at model.base_url serving the adapter under {lora_name}.
	Command []string `yaml:"command"`
}

// ScoreConfig is the held-out scoring of each checkpoint and of the base.
type ScoreConfig struct {
	Replicates int `yaml:"replicates"` // runs per side (default 3)
	K          int `yaml:"k"`          // samples per task per run (default 1)
}

// DecideConfig is the pre-registered rule that makes a checkpoint the
// best.
type DecideConfig struct {
	// Criterion is an extra bar on the pass@1 difference against the
	// base, in compare --criterion syntax ("delta>=0.03"). The interval
	// must exclude zero in any case.
	Criterion string `yaml:"criterion"`
}

// Placeholders are the names a trainer or server command may use, in
// braces: {dataset}.
var Placeholders = []string{
	"dataset", "reward_url", "adapter", "init_adapter", "model", "base_model",
	"round", "round_dir", "tasks", "lora_name", "base_url",
}

var placeholder = regexp.MustCompile(`\{([a-z_]+)\}`)

// Load reads and checks a round configuration. Unknown keys are errors:
// a misspelt key would otherwise be a silent default.
func Load(path string) (*Config, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, sqlgym.Userf("write a round.yaml (see docs/rounds.md) and pass it with --config", "read round config: %w", err)
	}
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	var c Config
	if err := dec.Decode(&c); err != nil {
		return nil, sqlgym.Userf("see docs/rounds.md for the keys a round.yaml takes", "%s: %w", path, err)
	}
	abs, err := filepath.Abs(filepath.Dir(path))
	if err != nil {
		return nil, err
	}
	c.base = abs
	if err := c.fill(); err != nil {
		return nil, sqlgym.Userf("fix the round config; docs/rounds.md lists every key", "%s: %w", path, err)
	}
	return &c, nil
}

// fill sets the defaults and checks what a round cannot run without.
func (c *Config) fill() error {
	if c.Dir == "" {
		c.Dir = "rounds"
	}
	if c.Mode == "" {
		c.Mode = "multiset"
	}
	if c.Rollout.K == 0 {
		c.Rollout.K = 8
	}
	if c.Band.MinTasks == 0 {
		c.Band.MinTasks = 16
	}
	if c.Export.Format == "" {
		c.Export.Format = "trl"
	}
	if c.Score.Replicates == 0 {
		c.Score.Replicates = 3
	}
	if c.Score.K == 0 {
		c.Score.K = 1
	}
	if c.Model.Temperature == 0 {
		c.Model.Temperature = 0.7
	}
	var errs []error
	if c.Tasks == "" {
		errs = append(errs, errors.New("tasks: required (a task file with splits, or shop)"))
	}
	if c.Model.BaseURL == "" || c.Model.Name == "" {
		errs = append(errs, errors.New("model.base_url and model.name: required (the server every eval goes through and the base model's name there)"))
	}
	if c.Rollout.K < 2 {
		errs = append(errs, fmt.Errorf("rollout.k %d: at least 2 (a band needs tasks solved sometimes)", c.Rollout.K))
	}
	if c.Score.Replicates < 1 || c.Score.K < 1 {
		errs = append(errs, errors.New("score.replicates and score.k: at least 1"))
	}
	switch c.Export.Format {
	case "trl", "verl":
	default:
		errs = append(errs, fmt.Errorf("export.format %q: trl or verl", c.Export.Format))
	}
	if len(c.Train.Command) == 0 {
		errs = append(errs, errors.New("train.command: required (sqlgym never trains; it runs your trainer)"))
	}
	if c.Serve.LoadLoRA == (len(c.Serve.Command) > 0) {
		errs = append(errs, errors.New("serve: set exactly one of load_lora: true (vLLM's runtime LoRA loading) or command"))
	}
	if c.Decide.Criterion != "" {
		if _, err := stats.ParseCriterion(c.Decide.Criterion); err != nil {
			errs = append(errs, fmt.Errorf("decide.criterion: %w", err))
		}
	}
	for _, args := range [][]string{c.Train.Command, c.Serve.Command, envValues(c.Train.Env)} {
		for _, a := range args {
			for _, m := range placeholder.FindAllStringSubmatch(a, -1) {
				if !known(m[1]) {
					errs = append(errs, fmt.Errorf("unknown placeholder {%s} in %q; known: {%s}", m[1], a, strings.Join(Placeholders, "}, {")))
				}
			}
		}
	}
	return errors.Join(errs...)
}

func envValues(env map[string]string) []string {
	var out []string
	for _, v := range env {
		out = append(out, v)
	}
	return out
}

func known(name string) bool {
	for _, p := range Placeholders {
		if p == name {
			return true
		}
	}
	return false
}

// expand fills a command's placeholders.
func expand(args []string, vals map[string]string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = placeholder.ReplaceAllStringFunc(a, func(m string) string { return vals[m[1:len(m)-1]] })
	}
	return out
}

// path resolves p against the config's folder.
func (c *Config) path(p string) string {
	if p == "" || filepath.IsAbs(p) || p == "shop" {
		return p
	}
	return filepath.Join(c.base, p)
}

// dbRef resolves the file path of a NAME=sqlite:PATH or NAME=duckdb:PATH
// reference against the config's folder; other references stay.
func (c *Config) dbRef(ref string) string {
	name, url, ok := strings.Cut(ref, "=")
	if !ok {
		return ref
	}
	for _, scheme := range []string{"sqlite:", "duckdb:"} {
		if p, ok := strings.CutPrefix(url, scheme); ok && !strings.HasPrefix(p, "//") {
			return name + "=" + scheme + c.path(p)
		}
	}
	return ref
}

// RoundsDir is the folder holding the round folders.
func (c *Config) RoundsDir() string { return c.path(c.Dir) }
