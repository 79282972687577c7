package variants

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync/atomic"
	"time"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/verify"
)

// What judging on the variants costs is measured the way a trainer pays
// it: a GRPO-shaped batch of answers (CostBatch) verified on the originals
// alone and on the originals with their variants (verify's Config.Variants,
// each task on its db_variants), the two alternated round by round in one
// process so that a loaded machine's drift tilts neither (MeasureJudging).
// A gold's own text is judged on its cached result and an answer wrong on
// the original never runs on a variant, so what the variants cost is one
// more run, per variant a task lists, of each distinct answer that matched
// on the original: the batch holds such answers as a policy samples them.

// costKinds are the answers a task's group holds, with the samples each
// takes of CostSamples: the gold (judged on its result), the gold wrapped
// in a subquery (equivalent, so it runs everywhere), two wrong ones that
// run on the original only unless they happen to match (the first row
// alone, a count of the rows), DISTINCT added (right unless the gold
// repeats rows), and one that does not run.
var costKinds = []struct {
	weight int
	make   func(gold string) string
}{
	{6, func(g string) string { return g }},
	{4, func(g string) string { return "SELECT * FROM (" + g + ") AS answer" }},
	{2, func(g string) string { return "SELECT * FROM (" + g + ") AS answer LIMIT 1" }},
	{1, func(g string) string { return "SELECT count(*) FROM (" + g + ") AS answer" }},
	{2, func(g string) string { return strings.Replace(g, "SELECT", "SELECT DISTINCT", 1) }},
	{1, func(string) string { return "SELECT * FROM no_such_table" }},
}

// CostSamples is the answers per task of CostBatch: a GRPO group.
const CostSamples = 16

// costTasks is the tasks of the batch a generation judges for its
// report: 512 answers, the batch size of the measure.
const costTasks = 32

// autoCostRows is the most rows an original may hold for a generation to
// measure its judging cost by default: on benchdb at 1 GB (16 million
// rows) the batch on the whole original costs minutes, more than the
// generation itself (sqlgym-bench variants-cost measures it apart).
const autoCostRows = 1_000_000

// CostBatch is CostSamples answers to each of the first n tasks (all when
// n <= 0 or beyond), drawn from seed by costKinds' weights, each task's
// gold taken for its database's dialect (dialect).
func CostBatch(tasks []sqlgym.Task, n int, seed uint64, dialect func(db string) sqlgym.Dialect) []verify.Answer {
	if n <= 0 || n > len(tasks) {
		n = len(tasks)
	}
	total := 0
	for _, k := range costKinds {
		total += k.weight
	}
	rng := rand.New(rand.NewPCG(seed, 24))
	var out []verify.Answer
	for _, t := range tasks[:n] {
		gold := strings.TrimRight(strings.TrimSpace(t.GoldFor(dialect(t.DB))), ";")
		for s := 0; s < CostSamples; s++ {
			r := rng.IntN(total)
			k := 0
			for r >= costKinds[k].weight {
				r -= costKinds[k].weight
				k++
			}
			out = append(out, verify.Answer{TaskID: t.ID, Sample: s, SQL: costKinds[k].make(gold)})
		}
	}
	return out
}

// Cost is what judging a batch cost on the originals alone and with the
// variants, summed over the rounds measured.
type Cost struct {
	Rounds  int `json:"rounds"`
	Answers int `json:"answers"`
	// Wall and CPU seconds of the batches on the originals alone
	// (Original) and with the variants (Variants); CPU is 0 where the
	// caller cannot measure it.
	OriginalWall float64 `json:"original_wall_seconds"`
	VariantsWall float64 `json:"variants_wall_seconds"`
	OriginalCPU  float64 `json:"original_cpu_seconds,omitempty"`
	VariantsCPU  float64 `json:"variants_cpu_seconds,omitempty"`
	// Runs counts the statements each side ran per batch (the variants'
	// side on every database), the measure no load blurs.
	OriginalRuns int `json:"original_runs"`
	VariantsRuns int `json:"variants_runs"`
}

// WallRatio and CPURatio are the variants' cost over the original's (0
// when not measured).
func (c Cost) WallRatio() float64 { return ratioOf(c.VariantsWall, c.OriginalWall) }
func (c Cost) CPURatio() float64  { return ratioOf(c.VariantsCPU, c.OriginalCPU) }

func ratioOf(a, b float64) float64 {
	if b <= 0 {
		return 0
	}
	return a / b
}

// MeasureJudging verifies answers to tasks rounds times on the originals
// alone and with the variants (cfg.Variants set on the second), the two
// alternated, after one warm-up batch of each (golds cached, engines
// open). cpu, when set, reads the process's CPU time so far.
func MeasureJudging(ctx context.Context, dbs verify.Databases, tasks []sqlgym.Task, answers []verify.Answer, cfg verify.Config, rounds int, cpu func() time.Duration) (Cost, error) {
	if rounds < 1 {
		rounds = 1
	}
	if cpu == nil {
		cpu = func() time.Duration { return 0 }
	}
	plainCfg, bothCfg := cfg, cfg
	plainCfg.Variants, bothCfg.Variants = false, true
	plainDBs, bothDBs := &countRuns{Databases: dbs}, &countRuns{Databases: dbs}
	plain, both := verify.New(plainDBs, tasks, plainCfg), verify.New(bothDBs, tasks, bothCfg)
	// A database that cannot be reached would make either side cheap:
	// the warm-up batches must judge, not fail.
	for _, v := range []*verify.Verifier{plain, both} {
		for _, r := range v.VerifyBatch(ctx, answers) {
			if r.Outcome == sqlgym.OutcomeInfraError {
				return Cost{}, fmt.Errorf("judging cost: task %s: %s: %w", r.TaskID, r.Detail, errNotJudged)
			}
		}
	}
	if err := ctx.Err(); err != nil {
		return Cost{}, err
	}
	c := Cost{Rounds: rounds, Answers: len(answers)}
	plainDBs.runs.Store(0)
	bothDBs.runs.Store(0)
	for i := 0; i < rounds; i++ {
		for side, v := range []*verify.Verifier{plain, both} {
			w0, c0 := time.Now(), cpu()
			v.VerifyBatch(ctx, answers)
			wall, used := time.Since(w0).Seconds(), (cpu() - c0).Seconds()
			if side == 0 {
				c.OriginalWall += wall
				c.OriginalCPU += used
			} else {
				c.VariantsWall += wall
				c.VariantsCPU += used
			}
		}
		if err := ctx.Err(); err != nil {
			return Cost{}, err
		}
	}
	c.OriginalRuns = int(plainDBs.runs.Load()) / rounds
	c.VariantsRuns = int(bothDBs.runs.Load()) / rounds
	return c, nil
}

// errNotJudged is a warm-up answer that could not be judged.
var errNotJudged = errors.New("the batch could not be judged (fix the database or the gold it names)")

// countRuns counts the statements the verifier runs through it.
type countRuns struct {
	verify.Databases
	runs atomic.Int64
}

func (c *countRuns) EngineURL(ctx context.Context, url string) (sqlgym.Engine, error) {
	e, err := c.Databases.EngineURL(ctx, url)
	if err != nil {
		return nil, err
	}
	return countingEngine{Engine: e, runs: &c.runs}, nil
}

type countingEngine struct {
	sqlgym.Engine
	runs *atomic.Int64
}

func (e countingEngine) Query(ctx context.Context, q string, lim sqlgym.Limits) (*sqlgym.ResultSet, error) {
	e.runs.Add(1)
	return e.Engine.Query(ctx, q, lim)
}
