package data

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/agent"
	"github.com/sqlgym/sqlgym/dataset"
	"github.com/sqlgym/sqlgym/internal/atomicfile"
	"github.com/sqlgym/sqlgym/prompt"
	"github.com/sqlgym/sqlgym/rundir"
	"github.com/sqlgym/sqlgym/shopdb"

	"github.com/sqlgym/sqlgym/internal/cmd/cmdkit"
)

type ExportOptions struct {
	Tasks          string
	Band           string
	Format         string
	Out            string
	Replace        bool
	IncludeHoldout bool
	Split          string
	PromptTemplate string
	Schema         string
	Linker         cmdkit.LinkerFlags
	Agent          bool
	Protocol       string
	JSON           bool
	DB             cmdkit.DBFlags
}

func NewExportCmd(io cmdkit.IO) *cobra.Command { return ExportCmd(io, new(ExportOptions)) }

// ExportCmd is export with its flags bound to opts (see evalCmd).
func ExportCmd(io cmdkit.IO, opts *ExportOptions) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "export",
		Short: "Write a training dataset for TRL, verl, SkyRL or NeMo-Gym",
		Long: `Write tasks as a training dataset, each prompt rendered by the same prompt
renderer and schema text as 'sqlgym eval'.

  --format trl    JSONL: "prompt" (chat messages), "task_id", "db", "gold_sql",
                  "split", "pass_rate" (band only), "prompt_hash"
  --format verl   Parquet: data_source ("sqlgym"), prompt (list of {role,
                  content}), ability ("sql"), reward_model {style "rule",
                  ground_truth: the gold SQL}, extra_info {index, task_id, db,
                  split, pass_rate (-1: none)}
  --format nemo-gym  JSONL: responses_create_params {input: the prompt's
                  messages}, task_id, db, split, pass_rate, prompt_hash;
                  scored by sqlgym serve's POST /verify
  --format skyrl  JSONL (with --agent --protocol text): prompt, env_class
                  ("sqlgym"), task_id, db, split, protocol, pass_rate,
                  prompt_hash

--agent writes multi-turn rows: the prompt is the episode's opening
messages exactly as POST /v1/episodes renders them for --protocol (tools or
text), plus what the trainer needs to drive the episode: verl rows get
agent_name "sqlgym_agent" and extra_info {protocol, tools_kwargs}; TRL and
SkyRL rows get "protocol"; NeMo-Gym rows (--protocol tools) get "protocol"
and the tools in responses_create_params.tools (Responses-API function
tools), which NeMo-Gym's agent calls as POST /<tool> on sqlgym serve.
Give it the --schema the server runs with.

--band takes a run folder (its band is computed as 'sqlgym band' does) or a
band file, and keeps only those tasks of --tasks. Only train tasks are
exported: held-out tasks are skipped, and a band holding any is refused,
unless --include-holdout.

--split holdout writes the validation file instead: only the held-out
tasks, whose rows say "split": "holdout" (and, in TRL rows, "label":
{"task_id", "mode": "eval"} for OpenRLHF). The shims score such rows as
evaluation requests, which 'sqlgym serve --eval-holdout' accepts and counts
apart. See docs/training.md.`,
		Example: `  sqlgym export --tasks shop --format trl --out train.jsonl
  sqlgym export --tasks shop --band runs/base-k16 --format verl --out train.parquet
  sqlgym export --tasks shop --split holdout --format trl --out holdout.trl.jsonl
  sqlgym export --tasks tasks.jsonl --band band.jsonl --db-dir data/database --format trl --out band.trl.jsonl --json
  sqlgym export --tasks shop --agent --protocol tools --format verl --out agent.parquet
  sqlgym export --tasks shop --agent --protocol text --format skyrl --out agent.skyrl.jsonl
  sqlgym export --tasks shop --format nemo-gym --out shop.nemo-gym.jsonl
  sqlgym export --tasks shop --agent --protocol tools --format nemo-gym --out agent.nemo-gym.jsonl`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return RunExport(cmd.Context(), io, *opts) },
	}
	f := cmd.Flags()
	f.StringVar(&opts.Tasks, "tasks", "", "task file (JSONL), or shop for the built-in set")
	f.StringVar(&opts.Band, "band", "", "keep only the band: a run folder or a band file (sqlgym band)")
	f.StringVar(&opts.Format, "format", "", "trl (JSONL), verl (Parquet), skyrl (JSONL, --agent) or nemo-gym (JSONL)")
	f.StringVar(&opts.Out, "out", "", "file to write")
	f.BoolVar(&opts.IncludeHoldout, "include-holdout", false, "also export held-out tasks (they are for evaluation)")
	f.StringVar(&opts.Split, "split", "train", "train (the training file) or holdout (the validation file: held-out tasks only)")
	f.StringVar(&opts.PromptTemplate, "prompt-template", "", "prompt template file (default: the built-in one eval uses)")
	f.BoolVar(&opts.Agent, "agent", false, "multi-turn rows: the prompt is the episode API's opening messages")
	f.StringVar(&opts.Protocol, "protocol", "tools", "with --agent: the episode protocol, tools or text")
	f.BoolVar(&opts.JSON, "json", false, "print the counts as JSON")
	f.StringVar(&opts.Schema, "schema", "full", "prompt schema: full or linked (oracle is refused: see sqlgym link)")
	cmdkit.AddLinkerFlags(cmd, &opts.Linker)
	cmdkit.AddDBFlags(cmd, &opts.DB)
	_ = cmd.MarkFlagRequired("tasks")
	_ = cmd.MarkFlagRequired("format")
	cmdkit.AddReplaceFlag(cmd, &opts.Replace)
	_ = cmd.MarkFlagRequired("out")
	return cmd
}

type ExportResult struct {
	Format       string `json:"format"`
	Split        string `json:"split"`
	Protocol     string `json:"protocol,omitempty"`
	Out          string `json:"out"`
	Examples     int    `json:"examples"`
	HeldOutSkip  int    `json:"holdout_skipped"`
	PromptHash   string `json:"prompt_template_hash"`
	BandSelected bool   `json:"band"`
	// Weak counts the exported tasks a screen marked weak.
	Weak int `json:"weak"`
}

func RunExport(ctx context.Context, io cmdkit.IO, opts ExportOptions) error {
	protocol, err := exportProtocol(opts)
	if err != nil {
		return err
	}
	holdout := opts.Split == sqlgym.SplitHoldout
	switch {
	case opts.Split != sqlgym.SplitTrain && !holdout:
		return cmdkit.Usagef("--split %q: train (the training file) or holdout (the validation file)", opts.Split)
	case holdout && opts.IncludeHoldout:
		return cmdkit.Usagef("--split holdout writes only held-out tasks: drop --include-holdout")
	case holdout && opts.Band != "":
		return cmdkit.Usagef("--split holdout validates on every held-out task: drop --band (the band is made on the train split)")
	}
	inputs := append([]string{opts.Tasks, opts.PromptTemplate}, opts.DB.Inputs()...)
	if err := cmdkit.CheckOutput("--out", opts.Out, opts.Replace, append(inputs, cmdkit.BandInputs(opts.Band)...)...); err != nil {
		return err
	}
	src, err := cmdkit.SchemaSource(opts.Schema, opts.Linker)
	if err != nil {
		return err
	}
	if err := cmdkit.RefuseOracle(src, "export"); err != nil {
		return err
	}
	tmpl := prompt.Default()
	if opts.PromptTemplate != "" {
		if tmpl, err = prompt.Load(opts.PromptTemplate); err != nil {
			return err
		}
	}
	tasks, err := shopdb.LoadTasks(opts.Tasks)
	if err != nil {
		return err
	}
	if opts.Band != "" {
		sel, err := bandSelection(opts.Band, tasks)
		if err != nil {
			return err
		}
		if tasks, err = dataset.Select(tasks, sel); err != nil {
			return err
		}
		if !opts.IncludeHoldout {
			for _, t := range tasks {
				if t.Split == sqlgym.SplitHoldout {
					return sqlgym.Userf("held-out tasks are for evaluation: make the band from a run on the train split (eval --split train), or pass --include-holdout",
						"the band holds held-out task %q", t.ID)
				}
			}
		}
	}
	var held int
	if holdout {
		if tasks = dataset.HeldOut(tasks); len(tasks) == 0 {
			return sqlgym.Userf("mark held-out tasks with 'sqlgym split' first", "--split holdout: no held-out task in %s", opts.Tasks)
		}
	} else if tasks, held = dataset.Split(tasks, opts.IncludeHoldout); len(tasks) == 0 {
		return sqlgym.Userf("check --tasks and --band (held-out tasks are skipped unless --include-holdout)", "nothing to export")
	}
	cat, err := opts.DB.CatalogFor(ctx, tasks)
	if err != nil {
		return err
	}
	defer cat.Close()
	cmdkit.UseEngineGolds(cat, tasks)
	var exs []dataset.Example
	if opts.Agent {
		op := agent.NewOpener(cat, nil, protocol)
		op.SetSchema(src)
		exs, err = dataset.RenderAgent(ctx, op, tasks)
		tmpl = op.Template()
	} else {
		exs, err = dataset.RenderSchema(ctx, cat, tmpl, src, tasks)
	}
	if err != nil {
		return err
	}
	switch opts.Format {
	case "trl":
		err = writeJSONLFile(opts.Out, exs, dataset.WriteTRL)
	case "verl":
		err = dataset.WriteVerl(opts.Out, exs)
	case "skyrl":
		err = writeJSONLFile(opts.Out, exs, dataset.WriteSkyRL)
	case "nemo-gym":
		err = writeJSONLFile(opts.Out, exs, dataset.WriteNemoGym)
	}
	if err != nil {
		return err
	}
	res := ExportResult{Format: opts.Format, Split: opts.Split, Protocol: string(protocol), Out: opts.Out, Examples: len(exs), HeldOutSkip: held, PromptHash: tmpl.Hash(), BandSelected: opts.Band != "",
		Weak: cmdkit.CountWeak(tasks)}
	cmdkit.WarnWeak(io.ErrOut, "export", res.Weak, len(tasks)) // stderr: --json's stdout stays one document
	if opts.JSON {
		return cmdkit.WriteJSON(io.Out, res)
	}
	fmt.Fprintf(io.Out, "%d examples (%s) -> %s\n", res.Examples, res.Format, res.Out)
	if held > 0 {
		fmt.Fprintf(io.ErrOut, "skipped %d held-out tasks (--include-holdout exports them)\n", held)
	}
	return nil
}

// bandSelection reads --band: a run folder, whose band is computed, or a
// Band file, read by the one task loader (so "shop" is the built-in set).
func bandSelection(path string, tasks []sqlgym.Task) ([]sqlgym.Task, error) {
	if st, err := os.Stat(path); err != nil || !st.IsDir() {
		band, lerr := shopdb.LoadTasks(path)
		if err != nil && lerr != nil {
			return nil, sqlgym.Userf("give a run folder (sqlgym eval --out) or a band file (sqlgym band --out)", "--band %s: %w", path, err)
		}
		return band, lerr
	}
	samples, err := rundir.ReadSamples(path)
	if err != nil {
		return nil, err
	}
	band, _, err := dataset.Band(tasks, samples)
	return band, err
}

// exportProtocol checks --format, --agent and --protocol together: the
// episode protocol of an agent-mode export, empty for a single-turn one.
func exportProtocol(opts ExportOptions) (agent.Protocol, error) {
	switch opts.Format {
	case "trl", "verl", "skyrl", "nemo-gym":
	default:
		return "", cmdkit.Usagef("--format %q: trl, verl, skyrl or nemo-gym", opts.Format)
	}
	if !opts.Agent {
		if opts.Format == "skyrl" {
			return "", cmdkit.Usagef("--format skyrl is for multi-turn episodes: add --agent --protocol text")
		}
		return "", nil
	}
	if opts.PromptTemplate != "" {
		return "", cmdkit.Usagef("--prompt-template with --agent: the episode API opens with the built-in agent templates, and the exported prompt must be what it sends; drop --prompt-template")
	}
	p, err := agent.ParseProtocol(opts.Protocol)
	if err != nil {
		return "", err
	}
	switch {
	case opts.Format == "skyrl" && p != agent.ProtocolText:
		return "", cmdkit.Usagef("--format skyrl --agent: SkyRL environments read the model's text, so use --protocol text")
	case opts.Format == "nemo-gym" && p != agent.ProtocolTools:
		return "", cmdkit.Usagef("--format nemo-gym --agent: NeMo-Gym's agents call tools on the resources server (sqlgym serve), so use --protocol tools")
	}
	return p, nil
}

// writeJSONLFile writes a JSONL dataset whole, with write.
func writeJSONLFile(path string, exs []dataset.Example, write func(io.Writer, []dataset.Example) error) error {
	return atomicfile.Write(path, func(w io.Writer) error { return write(w, exs) })
}
