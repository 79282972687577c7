package author

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/author/goldfilter"
)

// Config is one authoring run.
type Config struct {
	DB      string // the database name tasks carry
	Teacher Teacher
	Schema  *sqlgym.Schema
	Filter  *goldfilter.Filter
	// N is how many tasks the run ends with, counting Existing ones.
	N    int
	Seed uint64
	// Concurrency is how many golds the filter runs at once (default 4).
	// It changes the speed, never the tasks.
	Concurrency int
	// Batch is how many candidates are proposed per round (default 64).
	// Tasks depend on it, so it is fixed per seed, not per machine.
	Batch int
	// Existing are tasks already written by an interrupted run: they seed
	// the dedup sets and count toward N.
	Existing []sqlgym.Task
	// Emit is called with each kept task, in order, as soon as it is kept.
	Emit func(sqlgym.Task) error
	// Progress, when set, is called after every round.
	Progress func(Counts)
	// MaxProposals stops a teacher that cannot find N distinct tasks
	// (default 50*N + 2000).
	MaxProposals int
}

// Counts are a run's tallies.
type Counts struct {
	Proposed int                       `json:"proposed"`
	Kept     int                       `json:"kept"`    // kept by this run
	Resumed  int                       `json:"resumed"` // already in the task file
	Total    int                       `json:"total"`   // Resumed + Kept
	Dropped  map[goldfilter.Reason]int `json:"dropped"`
	PerLevel map[string]int            `json:"per_level"` // all tasks, resumed ones included
}

// ErrExhausted means the teacher stopped finding new tasks before N.
var ErrExhausted = errors.New("the teacher found no more new tasks")

// Run proposes, filters and deduplicates until cfg.N tasks exist. The
// candidates come from one PCG generator seeded by cfg.Seed and are decided
// in order, so the same seed and database give the same tasks whatever the
// concurrency; a resumed run replays the sequence, finds the tasks it has
// already written as duplicates, and continues exactly where it stopped.
func Run(ctx context.Context, cfg Config) (Counts, error) {
	if cfg.Concurrency <= 0 {
		cfg.Concurrency = 4
	}
	if cfg.Batch <= 0 {
		cfg.Batch = 64
	}
	if cfg.MaxProposals <= 0 {
		cfg.MaxProposals = 50*cfg.N + 2000
	}
	cnt := Counts{Dropped: map[goldfilter.Reason]int{}, PerLevel: map[string]int{}}
	for _, r := range goldfilter.Reasons {
		cnt.Dropped[r] = 0
	}
	dd := NewDedup()
	for _, t := range cfg.Existing {
		dd.Add(t.SQL, t.Question)
		cnt.PerLevel[t.Complexity]++
	}
	cnt.Resumed = len(cfg.Existing)
	cnt.Total = cnt.Resumed
	rng := rand.New(rand.NewPCG(cfg.Seed, cfg.Seed^0x9e3779b97f4a7c15))
	idle := 0
	for cnt.Total < cfg.N {
		if err := ctx.Err(); err != nil {
			return cnt, err
		}
		if cnt.Proposed >= cfg.MaxProposals || idle >= 30 {
			return cnt, fmt.Errorf("%w: %d of %d tasks after %d proposals", ErrExhausted, cnt.Total, cfg.N, cnt.Proposed)
		}
		cands, err := cfg.Teacher.Propose(ctx, cfg.Schema, cfg.Batch, rng)
		if err != nil {
			return cnt, fmt.Errorf("propose tasks: %w", err)
		}
		if len(cands) == 0 {
			return cnt, fmt.Errorf("%w: %d of %d tasks after %d proposals", ErrExhausted, cnt.Total, cfg.N, cnt.Proposed)
		}
		verdicts, err := checkAll(ctx, cfg.Filter, cands, dd, cfg.Concurrency)
		if err != nil {
			return cnt, err
		}
		before := cnt.Total
		for i, c := range cands {
			if cnt.Total >= cfg.N {
				break
			}
			cnt.Proposed++
			if r := dd.Seen(c.SQL, c.Question); r != "" {
				cnt.Dropped[r]++
				continue
			}
			if r := verdicts[i].Reason; r != "" {
				cnt.Dropped[r]++
				continue
			}
			t := NewTask(cfg.DB, c)
			if cfg.Emit != nil {
				if err := cfg.Emit(t); err != nil {
					return cnt, fmt.Errorf("write task %s: %w", t.ID, err)
				}
			}
			dd.Add(c.SQL, c.Question)
			cnt.Kept++
			cnt.Total++
			cnt.PerLevel[c.Complexity]++
		}
		if cnt.Total == before {
			idle++
		} else {
			idle = 0
		}
		if cfg.Progress != nil {
			cfg.Progress(cnt)
		}
	}
	return cnt, nil
}

// checkAll runs the filter over a round's candidates with a pool of
// workers, skipping those that repeat a kept task's SQL or question (they
// are dropped anyway).
func checkAll(ctx context.Context, f *goldfilter.Filter, cands []Candidate, dd *Dedup, workers int) ([]goldfilter.Verdict, error) {
	out := make([]goldfilter.Verdict, len(cands))
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	jobs := make(chan int)
	var mu sync.Mutex
	var firstErr error
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				v, err := f.Check(ctx, cands[i].gold())
				if err != nil {
					mu.Lock()
					if firstErr == nil {
						firstErr = err
					}
					mu.Unlock()
					cancel()
					continue
				}
				out[i] = v
			}
		}()
	}
	for i, c := range cands {
		if dd.Seen(c.SQL, c.Question) != "" {
			continue
		}
		select {
		case jobs <- i:
		case <-ctx.Done():
		}
	}
	close(jobs)
	wg.Wait()
	if firstErr != nil {
		return nil, fmt.Errorf("filter: %w", firstErr)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return out, nil
}
