package serve

import (
	"runtime"
	"time"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/agent"
	"github.com/sqlgym/sqlgym/link"
	"github.com/sqlgym/sqlgym/verify"
)

// Databases is what the server needs of a catalog: the verifier's
// resolution and engines. *catalog.Catalog implements it.
type Databases interface {
	verify.Databases
}

// Config is a server's settings. Zero fields take the defaults below.
type Config struct {
	// Tasks are the tasks items may name by task_id.
	Tasks []sqlgym.Task
	// IncludeHoldout lets items name held-out tasks; by default they are
	// refused, so a trainer cannot learn from the evaluation split.
	IncludeHoldout bool
	// EvalHoldout scores held-out tasks on requests marked "mode": "eval"
	// (validation during training), counted apart in /metrics; training
	// requests naming them are still refused.
	EvalHoldout bool
	DBs         Databases
	// Verify is how answers are judged (mode, rewards, limits, statements
	// at once per batch). Its Cache is set by the server.
	Verify verify.Config
	// RewardWeights make the reward a weighted sum of the reward
	// components (verify.Weights); nil or outcome=1 is the outcome reward.
	// Weights other than that turn Verify.Components on.
	RewardWeights verify.Weights

	// CacheEntries and CacheBytes bound the cross-request cache of
	// candidate results.
	CacheEntries int
	CacheBytes   int64
	// DBSlots is how many statements run at once on one database, shared
	// by the requests being scored a statement at a time (fair.go): no
	// default is more than the engines' own pools hold. DBSlots + Queue
	// requests may be in service on one database; past that, 429.
	DBSlots int
	Queue   int
	// MaxBodyBytes and MaxItems bound one request (413 past them).
	MaxBodyBytes int64
	MaxItems     int
	// ReadTimeout bounds reading one request's body: a client that stalls
	// mid-body gets 408 and its connection is closed, instead of holding
	// a slot and memory for as long as it likes.
	ReadTimeout time.Duration
	// BodyBytes bounds the request bodies being read and scored at once,
	// across the process (each takes its Content-Length, or MaxBodyBytes
	// when it sends none): past it, 429 with Retry-After. A decoded body
	// costs about twice its size while it is scored.
	BodyBytes int64
	// ResultBytes bounds the candidates' results the process holds at
	// once, shared by every batch (verify.Config.Budget): a statement takes
	// its byte cap (Verify.Limits.MaxBytes) before it runs, so at most
	// ResultBytes/MaxBytes candidates run at once. Zero means room for
	// 2 x GOMAXPROCS statements at their cap, at least 256 MiB
	// (verify.DefaultBudget).
	ResultBytes int64
	// Deadline bounds one request from arrival to answer, waiting
	// included; past it the answers judged are sent and the rest are
	// unscored (reward null), or 503 when none was judged.
	Deadline time.Duration
	// RetryAfter is what 429 and 503 answers tell the client to wait.
	RetryAfter time.Duration
	// AdhocGolds bounds the gold results kept for items that bring their
	// own database and gold: past it, those golds start afresh.
	AdhocGolds int

	// Agent bounds the episodes of the episode API (turns, token budget,
	// observation sizes); its Protocol is the default of requests that
	// name none.
	Agent agent.Config
	// Schema chooses the schema an episode's opening prompt shows (nil:
	// every table). Oracle is refused: a trainer would learn from the
	// gold's own tables.
	Schema *link.Source
	// EpisodeTTL is how long an episode may sit idle before it is
	// dropped; MaxEpisodes bounds the open episodes (429 past it).
	EpisodeTTL  time.Duration
	MaxEpisodes int
	// ReplicaID prefixes every episode id, so a load balancer can route an
	// episode's steps back to this replica (replica.go). Empty:
	// DefaultReplicaID (the host name, else a random short id).
	ReplicaID string
	// UnreadyDelay is how long, on shutdown, the server keeps accepting
	// requests with /readyz answering 503 before it closes its listener:
	// time for a balancer's health check (or Kubernetes' endpoint update)
	// to stop sending new work, so no request finds the port closed.
	UnreadyDelay time.Duration
}

// Defaults.
const (
	DefaultCacheEntries = 200_000
	DefaultCacheBytes   = 256 << 20
	DefaultQueue        = 64
	DefaultMaxBodyBytes = 32 << 20
	DefaultMaxItems     = 8192
	DefaultReadTimeout  = 30 * time.Second
	DefaultBodyBytes    = 128 << 20
	DefaultResultBytes  = verify.DefaultResultBytes
	DefaultDeadline     = 120 * time.Second
	DefaultRetryAfter   = time.Second
	DefaultAdhocGolds   = 10_000
	DefaultEpisodeTTL   = 10 * time.Minute
	DefaultMaxEpisodes  = 4096
)

// DefaultDBSlots is the statements at once per database: as many as the
// smallest engine pool holds by default (SQLite and PostgreSQL 2 x CPUs,
// DuckDB max(4, CPUs)), so a statement the server admits never waits in
// an engine behind another request's.
var DefaultDBSlots = min(2*runtime.GOMAXPROCS(0), max(4, runtime.GOMAXPROCS(0)))

func (c Config) withDefaults() Config {
	if c.CacheEntries <= 0 {
		c.CacheEntries = DefaultCacheEntries
	}
	if c.CacheBytes <= 0 {
		c.CacheBytes = DefaultCacheBytes
	}
	if c.DBSlots <= 0 {
		c.DBSlots = DefaultDBSlots
	}
	if c.Queue < 0 {
		c.Queue = 0
	} else if c.Queue == 0 {
		c.Queue = DefaultQueue
	}
	if c.MaxBodyBytes <= 0 {
		c.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if c.MaxItems <= 0 {
		c.MaxItems = DefaultMaxItems
	}
	if c.ReadTimeout <= 0 {
		c.ReadTimeout = DefaultReadTimeout
	}
	if c.BodyBytes <= 0 {
		c.BodyBytes = DefaultBodyBytes
	}
	// A chunked body reserves MaxBodyBytes: a smaller process budget would
	// turn every such request away for good.
	c.BodyBytes = max(c.BodyBytes, c.MaxBodyBytes)
	if c.ResultBytes <= 0 {
		c.ResultBytes = verify.DefaultBudget(2*runtime.GOMAXPROCS(0), c.Verify.Limits.WithDefaults().MaxBytes)
	}
	if c.Deadline <= 0 {
		c.Deadline = DefaultDeadline
	}
	if c.RetryAfter <= 0 {
		c.RetryAfter = DefaultRetryAfter
	}
	if c.AdhocGolds <= 0 {
		c.AdhocGolds = DefaultAdhocGolds
	}
	if c.EpisodeTTL <= 0 {
		c.EpisodeTTL = DefaultEpisodeTTL
	}
	if c.MaxEpisodes <= 0 {
		c.MaxEpisodes = DefaultMaxEpisodes
	}
	if c.ReplicaID == "" {
		c.ReplicaID = DefaultReplicaID()
	}
	if c.Agent.Protocol == "" {
		c.Agent.Protocol = agent.ProtocolTools
	}
	return c
}
