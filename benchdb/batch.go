package benchdb

import (
	"fmt"
	"math/rand/v2"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/verify"
)

// DBName is the name the tasks give their database; point it at a
// generated file (--db benchdb=sqlite:FILE).
const DBName = "benchdb"

// Samples is the answers per task in a batch, as a GRPO group.
const Samples = 16

// weights are how often a policy that is right most of the time samples
// each kind of answer; each rewrite, wrong and broken answer gets its own
// share, so a task has a few distinct statements and many repeats.
var weights = map[Kind]int{KindGold: 12, KindRespelled: 3, KindRewrite: 2, KindWrong: 1, KindError: 1}

// Batch is a GRPO-shaped batch: the first nTasks tasks with Samples
// answers each, drawn from each task's answers by weights. The answers of
// kind respelled come as completions (prose and a fenced block), so they
// go through extraction as a policy's replies do. Kinds[i] is the kind of
// Answers[i].
type Batch struct {
	Tasks   []sqlgym.Task
	Answers []verify.Answer
	Kinds   []Kind
}

// NewBatch draws a batch of nTasks x Samples answers from seed.
func NewBatch(seed uint64, nTasks int) (Batch, error) {
	if nTasks < 1 || nTasks > MaxTasks {
		return Batch{}, fmt.Errorf("benchmark batch: %d tasks: between 1 and %d", nTasks, MaxTasks)
	}
	rng := rand.New(rand.NewPCG(seed, 0xba7c4))
	var b Batch
	for _, t := range Tasks()[:nTasks] {
		b.Tasks = append(b.Tasks, sqlgym.Task{ID: t.ID, DB: DBName, Question: t.Question, SQL: t.Gold, Source: "benchdb"})
		total := 0
		for _, a := range t.Answers {
			total += weights[a.Kind]
		}
		for s := 0; s < Samples; s++ {
			r := rng.IntN(total)
			k := 0
			for r >= weights[t.Answers[k].Kind] {
				r -= weights[t.Answers[k].Kind]
				k++
			}
			a := t.Answers[k]
			ans := verify.Answer{TaskID: t.ID, Sample: s, SQL: a.SQL}
			if a.Kind == KindRespelled {
				ans.SQL = ""
				ans.Completion = "The question needs these tables; the query is:\n\n```sql\n" + a.SQL + "\n```\n"
				ans.FinishReason = "stop"
			}
			b.Answers = append(b.Answers, ans)
			b.Kinds = append(b.Kinds, a.Kind)
		}
	}
	return b, nil
}
