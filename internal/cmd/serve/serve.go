package serve

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"time"

	"github.com/spf13/cobra"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/agent"
	"github.com/sqlgym/sqlgym/serve"
	"github.com/sqlgym/sqlgym/shopdb"
	"github.com/sqlgym/sqlgym/verify"

	"github.com/sqlgym/sqlgym/internal/cmd/cmdkit"
)

type ServeOptions struct {
	Schema         string
	Linker         cmdkit.LinkerFlags
	Tasks          string
	Addr           string
	Mode           string
	Order          string
	Reward         string
	RewardWeights  string
	Components     bool
	Timeout        time.Duration
	VMSteps        int64
	SafetyNet      time.Duration
	Concurrency    int
	Warm           bool
	IncludeHoldout bool
	EvalHoldout    bool
	CacheEntries   int
	CacheMB        int
	DBSlots        int
	Queue          int
	MaxBodyMB      int
	MaxItems       int
	ReadTimeout    time.Duration
	BodyMB         int
	ResultMB       int
	Deadline       time.Duration
	RetryAfter     time.Duration
	Drain          time.Duration
	ReplicaID      string
	UnreadyDelay   time.Duration
	JSON           bool
	DB             cmdkit.DBFlags
	// The episode API's bounds.
	Protocol    string
	MaxTurns    int
	SubmitLast  bool
	TokenBudget int
	EpisodeTTL  time.Duration
	MaxEpisodes int

	// Listening, when set, is told the URL once the server listens (round
	// starts serve in process for its trainer).
	Listening func(url string)
}

func NewServeCmd(io cmdkit.IO) *cobra.Command { return ServeCmd(io, new(ServeOptions)) }

// ServeCmd is serve with its flags bound to opts (see evalCmd).
func ServeCmd(io cmdkit.IO, opts *ServeOptions) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve rewards to RL trainers over HTTP (TRL, verl, OpenRLHF)",
		Long: `Serve rewards over HTTP, scored by the same verifier as 'sqlgym verify' and
'sqlgym eval'.

  POST /v1/rewards   {"items": [{"task_id", "completion" | "sql", "finish_reason"?}, ...]}
                     (or items with "db" and "gold_sql" instead of "task_id")
                     -> {"results": [{"reward", "outcome", "sql", "detail"}, ...]}
  POST /get_reward   OpenRLHF's remote reward protocol (--reward.remote_url):
                     label = the export's "label" column (--data.label_key label)
  POST /slime/reward slime's remote reward model ({"prompt", "response", "label"};
                     read the reward with --reward-key reward, or ?answer=number)
  GET  /healthz      liveness: 200 once listening
  GET  /readyz       readiness: 200 once databases are open (and, with --warm,
                     golds cached); 503 while starting and from drain on
  GET  /metrics      Prometheus (sqlgym_serve_inflight_requests for autoscaling)

The episode API runs the multi-turn agent loop for trainers (see docs/agent.md):
  POST /v1/episodes            {"task_id", "protocol"?: "tools" | "text"}
                               -> {"episode_id", "messages", "tools"?, "max_turns"}
  POST /v1/episodes/{id}/step  {"message": assistant message (content, tool_calls)}
                               -> {"observations", "done", "reward", "outcome"?}
  DELETE /v1/episodes/{id}     end an episode early and judge it (no_query, or --submit-last)
Idle episodes expire after --episode-ttl; past --max-episodes open ones,
POST /v1/episodes answers 429. NeMo-Gym agent rows (export --agent --format
nemo-gym) open an episode at POST /seed_session (cookie sqlgym_episode); its
agent calls POST /list_tables, /describe_table, /run_sql, /submit, and
POST /verify answers the episode's reward (docs/training.md).

A reward is null for a reply cut off by the token limit (finish_reason
"length") and for failures that are not the model's (gold_error,
infra_error): a trainer must drop those samples. With --components each
result also carries reward components (rows, cells, cardinality, schema,
executes, format, length); --reward-weights, or a request's "weights",
makes the reward their weighted sum (docs/training.md). Held-out tasks are refused
unless --include-holdout; with --eval-holdout they are scored on requests
marked "mode": "eval" (validation rows of 'sqlgym export --split holdout',
which the shims mark), counted apart in /metrics, and still refused on
training requests.

Candidate results are cached across requests (LRU, --cache-entries and
--cache-mb). Requests share each database statement by statement: at most
--db-slots statements run on it at once, a freed slot goes to the request
holding the fewest, and one is kept for a request holding none, so a large
or slow batch never makes a small request wait for all of it. Past
--db-slots + --queue requests on one database: 429 with Retry-After. Past
its --deadline a request gets the answers judged so far and the rest as
"unscored" (reward null), or 503 when none was judged.
Memory is bounded per request (--max-body-mb, --max-items, --read-timeout)
and per process (--body-mb of bodies, --result-mb of results at once).
SIGTERM or Ctrl-C turns /readyz to 503, keeps serving for --unready-delay,
then stops accepting requests and drains those in flight.

Many replicas: episode ids start with --replica-id and a dot, so a balancer
routes each step back to the replica holding the episode; another replica
answers 404 naming it. See docs/deploy.md and docs/training.md.`,
		Example: `  sqlgym serve --tasks shop --warm
  sqlgym serve --tasks band.jsonl --db-dir data/database --addr 0.0.0.0:8421 --reward correct=1,wrong=0
  sqlgym serve --tasks shop --addr 127.0.0.1:0 --json   # prints {"addr", "ready", ...} once started
  sqlgym serve --tasks shop --warm --eval-holdout       # validation on held-out tasks during training
  sqlgym serve --tasks shop --addr 0.0.0.0:8421 --replica-id node-3 --warm --unready-delay 5s`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return RunServe(cmd.Context(), io, *opts) },
	}
	f := cmd.Flags()
	f.StringVar(&opts.Tasks, "tasks", "", "task file (JSONL), or shop for the built-in set")
	f.StringVar(&opts.Addr, "addr", "127.0.0.1:8421", "address to listen on (port 0: any free port)")
	f.StringVar(&opts.Mode, "mode", "multiset", "comparison mode: "+cmdkit.ModeNames())
	f.StringVar(&opts.Order, "order", "", cmdkit.OrderUsage)
	f.StringVar(&opts.Reward, "reward", "", "reward overrides, e.g. correct=1,wrong=0.1,truncated=null")
	f.BoolVar(&opts.Components, "components", false, "compute the reward components (rows, cells, cardinality, schema, executes, format, length) and return them beside each reward")
	f.StringVar(&opts.RewardWeights, "reward-weights", "", "the reward as a weighted sum of components, e.g. outcome=1,rows=0.3,schema=0.2 (implies --components; default outcome=1)")
	f.DurationVar(&opts.Timeout, "timeout", sqlgym.DefaultTimeout, "time limit per statement on PostgreSQL and DuckDB (on SQLite only with --vm-steps -1)")
	f.Int64Var(&opts.VMSteps, "vm-steps", 0, "SQLite: deterministic budget in virtual-machine steps that decides timeout, whatever the load (0: the default 200,000,000; -1: off, --timeout decides)")
	f.DurationVar(&opts.SafetyNet, "safety-net", 0, "SQLite with a step budget: wall-clock time after which a statement is stopped as infra_error, never scored (0: the default 300s)")
	f.IntVar(&opts.Concurrency, "concurrency", 0, "statements run at once per batch (0: 2 x CPUs)")
	f.BoolVar(&opts.Warm, "warm", false, "run every task's gold before listening (caches golds, reports broken tasks)")
	f.BoolVar(&opts.IncludeHoldout, "include-holdout", false, "also score held-out tasks (they are for evaluation, not training)")
	f.BoolVar(&opts.EvalHoldout, "eval-holdout", false, `score held-out tasks on evaluation requests ("mode": "eval") only, counted apart`)
	f.IntVar(&opts.CacheEntries, "cache-entries", serve.DefaultCacheEntries, "candidate results kept across requests")
	f.IntVar(&opts.CacheMB, "cache-mb", serve.DefaultCacheBytes>>20, "megabytes (estimated) of candidate results kept across requests")
	f.IntVar(&opts.DBSlots, "db-slots", serve.DefaultDBSlots, "statements at once per database, shared fairly by the requests being scored")
	f.IntVar(&opts.Queue, "queue", serve.DefaultQueue, "requests in service per database beyond --db-slots before 429 (-1: none)")
	f.IntVar(&opts.MaxBodyMB, "max-body-mb", serve.DefaultMaxBodyBytes>>20, "largest request body in megabytes (413 past it)")
	f.IntVar(&opts.MaxItems, "max-items", serve.DefaultMaxItems, "most items in one request (413 past it)")
	f.DurationVar(&opts.ReadTimeout, "read-timeout", serve.DefaultReadTimeout, "time to receive one request body (408 and the connection closed past it)")
	f.IntVar(&opts.BodyMB, "body-mb", serve.DefaultBodyBytes>>20, "megabytes of request bodies read and scored at once, whole process (429 past it)")
	f.IntVar(&opts.ResultMB, "result-mb", 0, "megabytes of candidates' results held at once, whole process; each statement takes its 64 MiB cap while it runs (0: room for 2 x CPUs statements, at least 256)")
	f.DurationVar(&opts.Deadline, "deadline", serve.DefaultDeadline, "time limit per request, waiting included: past it the answers judged are sent, the rest unscored (503 if none)")
	f.DurationVar(&opts.RetryAfter, "retry-after", serve.DefaultRetryAfter, "Retry-After sent with 429 and 503")
	f.DurationVar(&opts.Drain, "drain", 60*time.Second, "on shutdown, how long requests in flight may take to finish")
	f.StringVar(&opts.ReplicaID, "replica-id", "", "prefix of this replica's episode ids, for load-balancer affinity: a DNS label (default: the host name's first label, e.g. the pod name, else a random id)")
	f.DurationVar(&opts.UnreadyDelay, "unready-delay", 0, "on shutdown, keep serving this long with /readyz at 503 before closing the port, so balancers stop sending first")
	f.BoolVar(&opts.JSON, "json", false, "print the listening address and settings as one JSON line once started (after --warm; \"ready\" says whether /readyz is 200)")
	f.StringVar(&opts.Protocol, "protocol", string(agent.ProtocolTools), "episodes: protocol of requests that name none (tools or text)")
	f.IntVar(&opts.MaxTurns, "max-turns", agent.DefaultMaxTurns, "episodes: assistant turns per episode, the submitting one included")
	f.BoolVar(&opts.SubmitLast, "submit-last", false, "episodes: an episode that ends without submitting submits its last query run")
	f.IntVar(&opts.TokenBudget, "token-budget", 0, "episodes: completion tokens per episode, when steps report them (0: none)")
	f.DurationVar(&opts.EpisodeTTL, "episode-ttl", serve.DefaultEpisodeTTL, "episodes: idle time after which an episode is dropped")
	f.IntVar(&opts.MaxEpisodes, "max-episodes", serve.DefaultMaxEpisodes, "episodes: open episodes at most (429 past it)")
	f.StringVar(&opts.Schema, "schema", "full", "episodes: opening prompt's schema, full or linked (oracle is refused)")
	cmdkit.AddLinkerFlags(cmd, &opts.Linker)
	cmdkit.AddDBFlags(cmd, &opts.DB)
	cmdkit.AddVariantsFlag(cmd, &opts.DB)
	_ = cmd.MarkFlagRequired("tasks")
	return cmd
}

// ServeInfo is what serve prints once it listens.
type ServeInfo struct {
	Addr    string            `json:"addr"`
	URL     string            `json:"url"`
	Tasks   int               `json:"tasks"`
	Train   int               `json:"train"`
	Holdout int               `json:"holdout"`
	Mode    string            `json:"mode"`
	Rewards string            `json:"rewards"`
	Warm    *serve.WarmReport `json:"warm,omitempty"`
	Replica string            `json:"replica"`
	Ready   bool              `json:"ready"`
	// Weak counts the served tasks a screen marked weak.
	Weak int `json:"weak"`
}

func RunServe(ctx context.Context, io cmdkit.IO, opts ServeOptions) error {
	mode, err := cmdkit.ParseMode(opts.Mode)
	if err != nil {
		return err
	}
	if opts.IncludeHoldout && opts.EvalHoldout {
		return cmdkit.Usagef("--include-holdout scores held-out tasks on every request: give it or --eval-holdout (validation only), not both")
	}
	order, err := cmdkit.ParseOrder(opts.Order, mode, false)
	if err != nil {
		return err
	}
	rewards, err := verify.ParseRewards(opts.Reward)
	if err != nil {
		return err
	}
	weights, err := verify.ParseWeights(opts.RewardWeights)
	if err != nil {
		return err
	}
	proto, err := agent.ParseProtocol(opts.Protocol)
	if err != nil {
		return cmdkit.Usagef("--protocol %q: tools or text", opts.Protocol)
	}
	if opts.MaxTurns < 1 || opts.TokenBudget < 0 || opts.MaxEpisodes < 1 {
		return cmdkit.Usagef("--max-turns and --max-episodes must be 1 or more, --token-budget 0 or more")
	}
	src, err := cmdkit.SchemaSource(opts.Schema, opts.Linker)
	if err != nil {
		return err
	}
	if err := cmdkit.RefuseOracle(src, "serve"); err != nil {
		return err
	}
	replica := ""
	if opts.ReplicaID != "" {
		if replica, err = serve.ParseReplicaID(opts.ReplicaID); err != nil {
			return cmdkit.Usagef("--replica-id: %w", err)
		}
	}
	tasks, err := shopdb.LoadTasks(opts.Tasks)
	if err != nil {
		return err
	}
	cat, err := opts.DB.CatalogFor(ctx, tasks)
	if err != nil {
		return err
	}
	defer cat.Close()
	srv, err := serve.New(serve.Config{
		Tasks: tasks, IncludeHoldout: opts.IncludeHoldout, EvalHoldout: opts.EvalHoldout, DBs: cat, Schema: src,
		Verify: verify.Config{Mode: mode, Order: order, Rewards: rewards, Variants: opts.DB.Variants, Concurrency: opts.Concurrency,
			Limits: sqlgym.Limits{Timeout: opts.Timeout, VMSteps: opts.VMSteps, SafetyNet: opts.SafetyNet}, Components: opts.Components}, RewardWeights: weights,
		CacheEntries: opts.CacheEntries, CacheBytes: int64(opts.CacheMB) << 20,
		DBSlots: opts.DBSlots, Queue: opts.Queue, MaxBodyBytes: int64(opts.MaxBodyMB) << 20, MaxItems: opts.MaxItems,
		ReadTimeout: opts.ReadTimeout, BodyBytes: int64(opts.BodyMB) << 20, ResultBytes: int64(opts.ResultMB) << 20,
		Deadline: opts.Deadline, RetryAfter: opts.RetryAfter,
		Agent:      agent.Config{Protocol: proto, MaxTurns: opts.MaxTurns, SubmitLast: opts.SubmitLast, MaxTokens: opts.TokenBudget},
		EpisodeTTL: opts.EpisodeTTL, MaxEpisodes: opts.MaxEpisodes,
		ReplicaID: replica, UnreadyDelay: opts.UnreadyDelay,
	})
	if err != nil {
		return err
	}
	cmdkit.BoundGoHeap(srv.HeldBytes())
	// Listen first: /healthz answers while databases open and golds warm,
	// and /readyz says 503 until both are done (ready.go).
	ln, err := net.Listen("tcp", opts.Addr)
	if err != nil {
		return sqlgym.Userf("pick another --addr (port 0 takes any free port)", "listen on %s: %w", opts.Addr, err)
	}
	sctx, stop := context.WithCancel(ctx)
	defer stop()
	served := make(chan error, 1)
	go func() { served <- srv.Serve(sctx, ln, opts.Drain) }()
	train, held := countSplits(tasks)
	info := ServeInfo{Tasks: len(tasks), Train: train, Holdout: held, Mode: verify.Config{Mode: mode, Order: order, Variants: opts.DB.Variants}.ModeLabel(),
		Rewards: rewards.String(), Replica: srv.Replica(), Weak: cmdkit.CountWeak(tasks)}
	cmdkit.WarnWeak(io.ErrOut, "serve", info.Weak, len(tasks))
	openErr, err := startUp(ctx, io, srv, opts, &info)
	if err != nil {
		stop()
		<-served
		return err
	}
	if openErr == nil {
		srv.MarkReady()
	} else {
		go srv.ReadyWhenOpen(sctx, openErr, 5*time.Second)
	}
	info.Ready = openErr == nil
	info.Addr = ln.Addr().String()
	info.URL = "http://" + info.Addr
	if opts.Listening != nil {
		opts.Listening(info.URL)
	}
	if opts.JSON {
		b, _ := json.Marshal(info)
		fmt.Fprintln(io.Out, string(b))
	} else {
		fmt.Fprintf(io.Out, "serving rewards for %d tasks (%d train, %d held out%s; mode %s) on %s as replica %s\n", info.Tasks,
			info.Train, info.Holdout, holdoutNote(opts.IncludeHoldout, opts.EvalHoldout, info.Holdout), info.Mode, info.URL, info.Replica)
	}
	err = <-served
	if !opts.JSON {
		fmt.Fprintln(io.ErrOut, "stopped: requests in flight drained")
	}
	return err
}

// startUp opens the databases and, with --warm, caches the golds: what
// /readyz waits for. Every database was opened and checked before
// (catalogFor), so one that is unusable stopped serve already; one that
// goes down between that check and here is openErr, not a failure to
// start: the server serves (its items get infra_error) and turns ready
// once it opens. A warm-up that fails, or in which every gold fails, is
// err.
func startUp(ctx context.Context, io cmdkit.IO, srv *serve.Server, opts ServeOptions, info *ServeInfo) (openErr, err error) {
	if openErr = srv.OpenDatabases(ctx); openErr != nil {
		fmt.Fprintf(io.ErrOut, "warning: %v\nhint: /readyz answers 503 until every task database opens (retried every 5s)\n", openErr)
	}
	if !opts.Warm {
		return openErr, probeGolds(ctx, io, srv, openErr)
	}
	rep, err := srv.Warm(ctx)
	if err != nil {
		return openErr, err
	}
	info.Warm = &rep
	if !opts.JSON {
		fmt.Fprintf(io.ErrOut, "warmed %d golds in %s", rep.Tasks, rep.Took.Round(time.Millisecond))
		if n := len(rep.GoldErrors); n > 0 {
			fmt.Fprintf(io.ErrOut, "; %d golds fail (their items get gold_error, reward null): %v", n, head(rep.GoldErrors, 5))
		}
		if n := len(rep.NotSelf); n > 0 {
			fmt.Fprintf(io.ErrOut, "; %d golds do not match themselves: %v", n, head(rep.NotSelf, 5))
		}
		fmt.Fprintln(io.ErrOut)
		cmdkit.PrintBroken(io.ErrOut, rep.Broken)
	}
	if openErr == nil && rep.Tasks > 0 && len(rep.GoldErrors) == rep.Tasks {
		// A server whose every reward would be null trains nothing:
		// refuse to start rather than answer every request in vain.
		return openErr, cmdkit.NothingScored("serve --warm", len(rep.GoldErrors), 0, rep.Broken)
	}
	return openErr, nil
}

// probeGolds is the check serve makes without --warm: it runs golds
// until one works (usually a single small batch), and refuses to start
// when none does, as --warm would, since every reward would be null.
func probeGolds(ctx context.Context, io cmdkit.IO, srv *serve.Server, openErr error) error {
	if openErr != nil {
		return nil
	}
	rep, err := srv.ProbeGolds(ctx)
	if err != nil {
		return err
	}
	if rep.Tasks > 0 && len(rep.GoldErrors) == rep.Tasks {
		cmdkit.PrintBroken(io.ErrOut, rep.Broken)
		return cmdkit.NothingScored("serve", len(rep.GoldErrors), 0, rep.Broken)
	}
	return nil
}

func head(s []string, n int) []string {
	if len(s) > n {
		return append(s[:n:n], "...")
	}
	return s
}

// countSplits counts the held-out tasks and the others (train, or
// unmarked), which serve scores.
func countSplits(tasks []sqlgym.Task) (train, holdout int) {
	for _, t := range tasks {
		if t.Split == sqlgym.SplitHoldout {
			holdout++
		} else {
			train++
		}
	}
	return train, holdout
}

// holdoutNote says whether held-out tasks are scored, for the start line.
func holdoutNote(include, eval bool, n int) string {
	switch {
	case n == 0:
		return ""
	case include:
		return ", scored: --include-holdout"
	case eval:
		return ", scored on evaluation requests only: --eval-holdout"
	}
	return ", refused"
}
