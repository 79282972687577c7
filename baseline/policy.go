package baseline

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/model"
)

// PolicyName labels the baseline in run manifests and reports.
const PolicyName = "baseline-bm25"

// DefaultTopN is how many of the best matches sampling chooses among.
const DefaultTopN = 5

// Options configure the baseline.
type Options struct {
	// Temperature 0 answers every sample with the best match; above 0 each
	// sample draws one of the TopN best matches with probability
	// proportional to exp(BM25 score / Temperature).
	Temperature float64
	// Seed fixes the draws: a sample depends only on Seed, the task id and
	// the sample's index, never on the order or the concurrency of calls.
	Seed uint64
	// TopN bounds the matches sampled among (0: DefaultTopN).
	TopN int
	// Values lists, per database name, text values known to be in that
	// database (KnownValues of its schema), so questions that name them in
	// lower case are still read as naming a value. Optional.
	Values map[string][]string
	// Dialects names, per database name, the engine the database runs on:
	// a retrieved task's gold for that dialect (Task.GoldFor, its
	// gold_sql_by_dialect) is the query answered, as eval scores it. A
	// database not named answers with the task's sql.
	Dialects map[string]sqlgym.Dialect
	// K1 and B are BM25's parameters (0: 1.2 and 0.75).
	K1, B float64
}

// Policy is the offline baseline: a model.Policy that answers a task with
// the query of the most similar training question on the same database,
// its literals adapted to the values the new question names.
type Policy struct {
	opts  Options
	tasks map[string]*sqlgym.Task
	dbs   map[string]*dbIndex
}

// dbIndex is the retrieval index of one database's training questions.
type dbIndex struct {
	tasks []*sqlgym.Task
	bm    *bm25
	known []string
}

// Match is one retrieved training task and the query the baseline makes
// of it for the new question. It is the seam an agent builds on: Tables
// names what the retrieved query reads, so an agent can describe those
// tables before it writes its own query.
type Match struct {
	// Task is the retrieved training task; Task.SQL is its query as the
	// task file holds it.
	Task  *sqlgym.Task
	Score float64
	// SQL is the task's gold for the database's dialect (Task.SQL unless
	// Options.Dialects names one the task has a gold for) with its
	// literals adapted to the new question.
	SQL          string
	Replacements []Replacement
	// Tables are the tables the retrieved query reads.
	Tables []string
}

// New indexes the training split of tasks, per database. Tasks without a
// split count as training tasks; held-out tasks are never indexed, so no
// answer can copy a held-out gold. Every task, held out or not, can be
// asked about: Complete looks the prompt's task up by id.
func New(tasks []sqlgym.Task, opts Options) (*Policy, error) {
	if opts.Temperature < 0 || math.IsNaN(opts.Temperature) || math.IsInf(opts.Temperature, 0) {
		return nil, fmt.Errorf("baseline: temperature %v: want a finite number >= 0", opts.Temperature)
	}
	if opts.TopN < 0 {
		return nil, fmt.Errorf("baseline: top-n %d: want >= 0", opts.TopN)
	}
	if opts.TopN == 0 {
		opts.TopN = DefaultTopN
	}
	if opts.K1 <= 0 {
		opts.K1 = defaultK1
	}
	if opts.B <= 0 {
		opts.B = defaultB
	}
	p := &Policy{opts: opts, tasks: make(map[string]*sqlgym.Task, len(tasks)), dbs: map[string]*dbIndex{}}
	own := make([]sqlgym.Task, len(tasks))
	copy(own, tasks)
	docs := map[string][][]string{}
	for i := range own {
		t := &own[i]
		if _, dup := p.tasks[t.ID]; dup {
			return nil, fmt.Errorf("baseline: duplicate task id %q", t.ID)
		}
		p.tasks[t.ID] = t
		if t.Split == sqlgym.SplitHoldout {
			continue
		}
		ix := p.dbs[t.DB]
		if ix == nil {
			ix = &dbIndex{known: sortedKnown(opts.Values[t.DB])}
			p.dbs[t.DB] = ix
		}
		ix.tasks = append(ix.tasks, t)
		docs[t.DB] = append(docs[t.DB], terms(t.Question, questionValues(t.Question, ix.known)))
	}
	for db, ix := range p.dbs {
		ix.bm = newBM25(docs[db], opts.K1, opts.B)
	}
	return p, nil
}

// sortedKnown orders known values longest first, so "New York City" wins
// over "New York" where both are known.
func sortedKnown(vals []string) []string {
	out := append([]string(nil), vals...)
	sort.SliceStable(out, func(i, j int) bool { return len(out[i]) > len(out[j]) })
	return out
}

// Name labels the policy in reports.
func (p *Policy) Name() string { return PolicyName }

// Indexed reports how many training tasks of a database are indexed.
func (p *Policy) Indexed(db string) int {
	if ix := p.dbs[db]; ix != nil {
		return len(ix.tasks)
	}
	return 0
}

// ErrUnknownTask is wrapped by the error for a task id that New was not
// given.
var ErrUnknownTask = errors.New("unknown task")

// Retrieve returns up to n of the best matches for a task, best first,
// each adapted to the task's question. Ties in score go to the task that
// comes first in the task list. The task itself is never a match, nor is
// any held-out task. A database without training tasks gives no matches.
func (p *Policy) Retrieve(taskID string, n int) ([]Match, error) {
	t, ok := p.tasks[taskID]
	if !ok {
		return nil, fmt.Errorf("baseline: task %q: %w", taskID, ErrUnknownTask)
	}
	ranked := p.rank(t)
	if n < len(ranked) {
		ranked = ranked[:n]
	}
	out := make([]Match, len(ranked))
	for i, r := range ranked {
		out[i] = p.match(t, r)
	}
	return out, nil
}

type scored struct {
	task  *sqlgym.Task
	score float64
}

// rank scores every training task of t's database but t itself, best
// first.
func (p *Policy) rank(t *sqlgym.Task) []scored {
	ix := p.dbs[t.DB]
	if ix == nil {
		return nil
	}
	q := terms(t.Question, questionValues(t.Question, ix.known))
	out := make([]scored, 0, len(ix.tasks))
	for d, cand := range ix.tasks {
		if cand.ID == t.ID {
			continue
		}
		out = append(out, scored{cand, ix.bm.score(q, d)})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].score > out[j].score })
	return out
}

func (p *Policy) match(t *sqlgym.Task, r scored) Match {
	var known []string
	if ix := p.dbs[t.DB]; ix != nil {
		known = ix.known
	}
	gold := r.task.GoldFor(p.opts.Dialects[t.DB])
	sql, repl := adapt(gold, r.task.Question, t.Question, known)
	return Match{Task: r.task, Score: r.score, SQL: sql, Replacements: repl, Tables: tablesUsed(gold)}
}

// Complete answers the prompt's task k times. Each completion's text is
// the chosen query in a ```sql fence, so extraction and scoring treat it
// exactly as a model's answer; Reasoning says which training task it came
// from and what was replaced. A task whose database has no training task
// gets a completion without a query, which scores as no_query.
func (p *Policy) Complete(ctx context.Context, pr model.Prompt, k int) ([]model.Completion, error) {
	if k < 1 {
		return nil, fmt.Errorf("baseline: task %s: %d samples asked, want at least 1", pr.TaskID, k)
	}
	samples := make([]int, k)
	for i := range samples {
		samples[i] = i
	}
	return p.CompleteAt(ctx, pr, samples)
}

// CompleteAt answers the prompt's task once for each sample index: the
// completion of index i is the one Complete gives at position i, so eval
// asks for just the samples a run misses, never for all those before them.
func (p *Policy) CompleteAt(ctx context.Context, pr model.Prompt, samples []int) ([]model.Completion, error) {
	start := time.Now()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if len(samples) == 0 {
		return nil, fmt.Errorf("baseline: task %s: no sample asked", pr.TaskID)
	}
	t, ok := p.tasks[pr.TaskID]
	if !ok {
		return nil, fmt.Errorf("baseline: task %q: %w", pr.TaskID, ErrUnknownTask)
	}
	ranked := p.rank(t)
	if len(ranked) > p.opts.TopN {
		ranked = ranked[:p.opts.TopN]
	}
	out := make([]model.Completion, len(samples))
	if len(ranked) == 0 {
		for i := range out {
			out[i] = model.Completion{
				Text:         fmt.Sprintf("No training question on database %q to retrieve from.", t.DB),
				FinishReason: model.FinishStop,
			}
		}
		return fill(out, start), nil
	}
	matches := map[int]Match{}
	for i, j := range samples {
		// A huge call still ends promptly on Ctrl-C.
		if i%1024 == 1023 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		c := 0
		if p.opts.Temperature > 0 {
			c = draw(ranked, p.opts.Temperature, p.rng(pr.TaskID, j))
		}
		m, ok := matches[c]
		if !ok {
			m = p.match(t, ranked[c])
			matches[c] = m
		}
		out[i] = model.Completion{
			Text:         "```sql\n" + strings.TrimSpace(m.SQL) + "\n```",
			Reasoning:    explain(m, c+1, ranked[0].score),
			FinishReason: model.FinishStop,
		}
	}
	return fill(out, start), nil
}

func fill(out []model.Completion, start time.Time) []model.Completion {
	d := time.Since(start)
	for i := range out {
		out[i].Latency = d
	}
	return out
}

func explain(m Match, rank int, best float64) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Retrieved training task %s (match %d, BM25 %.3f, best %.3f): %q.", m.Task.ID, rank, m.Score, best, m.Task.Question)
	for _, r := range m.Replacements {
		fmt.Fprintf(&b, " Replaced %s with %s.", r.From, r.To)
	}
	return b.String()
}

// rng is the generator of one sample: PCG seeded with Options.Seed and a
// hash of the task id and the sample's index.
func (p *Policy) rng(taskID string, sample int) *rand.Rand {
	h := fnv.New64a()
	h.Write([]byte(taskID))
	h.Write([]byte{0})
	h.Write([]byte(strconv.Itoa(sample)))
	return rand.New(rand.NewPCG(p.opts.Seed, h.Sum64()))
}

// draw picks an index of ranked with probability proportional to
// exp(s_i / T), s_i the raw BM25 score (computed as exp((s_i - s_max) / T)
// so nothing overflows). Raw scores and not scores divided by the best:
// on Spider dev's held-out split at T = 0.7 the normalised form drew
// unrelated questions so often that pass@1 fell from 0.37 to 0.14 and
// pass@4 (0.35) fell below greedy pass@1 (0.39).
func draw(ranked []scored, temp float64, r *rand.Rand) int {
	best := ranked[0].score
	w := make([]float64, len(ranked))
	total := 0.0
	for i, s := range ranked {
		z := (s.score - best) / temp
		w[i] = math.Exp(z)
		total += w[i]
	}
	u := r.Float64() * total
	for i, x := range w {
		if u < x {
			return i
		}
		u -= x
	}
	return len(w) - 1
}

var _ model.Policy = (*Policy)(nil)
