package run

import (
	"context"

	"github.com/spf13/cobra"

	"fmt"

	"github.com/sqlgym/sqlgym/agent"
	"github.com/sqlgym/sqlgym/baseline"
	"github.com/sqlgym/sqlgym/catalog"
	"github.com/sqlgym/sqlgym/eval"
	"github.com/sqlgym/sqlgym/model"

	"github.com/sqlgym/sqlgym/internal/cmd/cmdkit"
)

// agentOptions are the multi-turn flags of eval and demo.
type agentOptions struct {
	On          bool
	MaxTurns    int
	Protocol    string
	SubmitLast  bool
	TokenBudget int
}

func addAgentFlags(cmd *cobra.Command, o *agentOptions) {
	f := cmd.Flags()
	f.BoolVar(&o.On, "agent", false, "play each sample as a multi-turn episode (tools to inspect tables and run queries, then submit)")
	f.IntVar(&o.MaxTurns, "max-turns", agent.DefaultMaxTurns, "with --agent: assistant turns per episode, the submitting one included")
	f.StringVar(&o.Protocol, "protocol", string(agent.ProtocolTools), "with --agent: tools (OpenAI tool calls) or text (<sql> and <solution> tags)")
	f.BoolVar(&o.SubmitLast, "submit-last", false, "with --agent: an episode that ends without submitting submits its last query run (else no_query)")
	f.IntVar(&o.TokenBudget, "token-budget", 0, "with --agent: completion tokens per episode over all turns (0: no budget)")
}

// check refuses agent flags given without --agent: they would silently do
// nothing.
func (o agentOptions) check(cmd *cobra.Command) error {
	if o.On {
		if o.MaxTurns < 1 {
			return cmdkit.Usagef("--max-turns %d: at least 1", o.MaxTurns)
		}
		if o.TokenBudget < 0 {
			return cmdkit.Usagef("--token-budget %d: 0 (none) or more", o.TokenBudget)
		}
		if _, err := agent.ParseProtocol(o.Protocol); err != nil {
			return cmdkit.Usagef("--protocol %q: tools or text", o.Protocol)
		}
		return nil
	}
	for _, name := range []string{"max-turns", "protocol", "submit-last", "token-budget"} {
		if cmd.Flags().Changed(name) {
			return cmdkit.Usagef("--%s needs --agent", name)
		}
	}
	return nil
}

func (o agentOptions) config() agent.Config {
	return agent.Config{Protocol: agent.Protocol(o.Protocol), MaxTurns: o.MaxTurns, SubmitLast: o.SubmitLast, MaxTokens: o.TokenBudget}
}

// agentSetup turns an eval configuration into an agent run: the policy's
// model server (or the baseline) becomes the actor of each episode, and
// the protocol's own prompt template replaces the single-turn one unless
// --prompt-template names one.
func agentSetup(ctx context.Context, cfg *eval.Config, opts EvalOptions, cat *catalog.Catalog) error {
	ac := opts.Agent.config()
	cfg.Agent = &ac
	if opts.PromptTemplate == "" {
		cfg.Template = agent.DefaultTemplate(ac.Protocol)
	}
	switch p := cfg.Policy.(type) {
	case *baseline.Policy:
		known, err := knownValues(ctx, cat, cfg.Tasks)
		if err != nil {
			return err
		}
		cfg.Actor = &agent.BaselineActor{Policy: p, Known: known}
	case *model.OpenAIPolicy:
		// The actor samples through the policy's client: one pool, one
		// retry log and one set of per-replica counts for the run.
		client := p.Client()
		d := model.Decoding{Temperature: model.Float(opts.Temperature), MaxTokens: opts.MaxTokens, Stop: opts.Stop, Extra: cfg.Decoding.Extra}
		if opts.TopPSet {
			d.TopP = model.Float(opts.TopP)
		}
		if opts.SeedSet {
			d.Seed = model.Int(opts.Seed)
		}
		cfg.Actor = &agent.ModelActor{Client: client, Label: opts.Model, Decoding: d}
	default:
		return fmt.Errorf("--agent: no actor for the policy %T", cfg.Policy)
	}
	return nil
}
