package round

import (
	"context"
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/sqlgym/sqlgym/model"
	"github.com/sqlgym/sqlgym/round"

	"github.com/sqlgym/sqlgym/internal/cmd/cmdkit"
	runcmd "github.com/sqlgym/sqlgym/internal/cmd/run"
)

type roundOptions struct {
	Config  string
	DryRun  bool
	JSON    bool
	HTML    string
	Replace bool
}

const roundLong = `Run one round of the post-training loop, or resume the one in progress:

  rollout  eval the current best model on the train split (rollout.k samples)
  band     keep the tasks it solves sometimes; stop if fewer than band.min_tasks
  export   write the band for the trainer (export.format: trl or verl)
  train    run train.command, logged to train.log, with sqlgym serve on the
           band for its rewards when train.serve_rewards is set
  serve    load the adapter into vLLM (POST /v1/load_lora_adapter) or run
           serve.command
  score    eval the held-out split score.replicates times on the new adapter,
           and the base the same way through the same server (once)
  decide   compare with the base and with the checkpoint the round started
           from, apply the pre-registered rule, write decision.json

Every step is the sqlgym command a user would type, run in this process
from that command's own options (--dry-run prints the line they make), so
the numbers come from the same verifier, prompts and ledger. Each
step leaves a marker when done: a round killed at any step resumes there when
run again, and a finished round makes the next call start the next round from
the best checkpoint. Files go to rounds/NNN/ (see docs/rounds.md).`

func NewRoundCmd(io cmdkit.IO) *cobra.Command {
	var opts roundOptions
	cmd := &cobra.Command{
		Use:   "round",
		Short: "One round of the RL loop: rollout, band, export, train, serve, score, decide",
		Long:  roundLong,
		Example: `  sqlgym round --config round.yaml --dry-run   # print what each step would run
  sqlgym round --config round.yaml             # run or resume one round
  sqlgym round status --config round.yaml      # every round's scores and verdicts`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runRound(cmd.Context(), io, opts) },
	}
	f := cmd.PersistentFlags()
	f.StringVar(&opts.Config, "config", "round.yaml", "round configuration (YAML, see docs/rounds.md)")
	f.BoolVar(&opts.JSON, "json", false, "print JSON")
	cmd.Flags().BoolVar(&opts.DryRun, "dry-run", false, "print the commands each step would run, run nothing")
	status := &cobra.Command{
		Use:   "status",
		Short: "Print every round's scores with intervals, the verdicts and the best checkpoint",
		Example: `  sqlgym round status --config round.yaml
  sqlgym round status --config round.yaml --json
  sqlgym round status --config round.yaml --html rounds.html`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runRoundStatus(io, opts) },
	}
	status.Flags().StringVar(&opts.HTML, "html", "", "also write the history as a self-contained HTML page")
	cmdkit.AddReplaceFlag(status, &opts.Replace)
	cmd.AddCommand(status)
	return cmd
}

func newRoundRunner(io cmdkit.IO, opts roundOptions) (*round.Runner, error) {
	cfg, err := round.Load(opts.Config)
	if err != nil {
		return nil, err
	}
	key, err := model.APIKeyFromEnv(cfg.Model.APIKeyEnv)
	if err != nil {
		return nil, err
	}
	mc, err := model.New(cfg.Model.BaseURL, model.WithAPIKey(key))
	if err != nil {
		return nil, err
	}
	return &round.Runner{
		Cfg: cfg, Commands: RoundCommands(io.ErrOut), Progress: io.ErrOut, DryRun: opts.DryRun, Model: mc,
	}, nil
}

func runRound(ctx context.Context, io cmdkit.IO, opts roundOptions) error {
	r, err := newRoundRunner(io, opts)
	if err != nil {
		return err
	}
	if opts.DryRun {
		r.Progress = io.Out
	}
	d, err := r.Run(ctx)
	var stopped *round.StoppedError
	if err != nil && !errors.As(err, &stopped) {
		return err
	}
	if d == nil {
		return nil
	}
	if opts.JSON {
		if werr := cmdkit.WriteJSON(io.Out, d); werr != nil {
			return werr
		}
	} else {
		h, herr := round.Status(r.Cfg.RoundsDir(), r.Cfg.Model.Name)
		if herr != nil {
			return herr
		}
		if werr := h.WriteText(io.Out); werr != nil {
			return werr
		}
	}
	return err
}

func runRoundStatus(io cmdkit.IO, opts roundOptions) error {
	cfg, err := round.Load(opts.Config)
	if err != nil {
		return err
	}
	h, err := round.Status(cfg.RoundsDir(), cfg.Model.Name)
	if err != nil {
		return err
	}
	if opts.HTML != "" {
		if err := cmdkit.CheckOutput("--html", opts.HTML, opts.Replace, opts.Config); err != nil {
			return err
		}
		if err := runcmd.WriteReportFile(opts.HTML, h.WriteHTML); err != nil {
			return err
		}
		fmt.Fprintf(io.ErrOut, "wrote %s\n", opts.HTML) // stderr: --json's stdout stays one document
	}
	if opts.JSON {
		return cmdkit.WriteJSON(io.Out, h)
	}
	return h.WriteText(io.Out)
}
