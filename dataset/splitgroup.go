package dataset

import (
	"fmt"
	"slices"
	"strings"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/sqltext"
)

// Ways split can group tasks (split --group-by).
const (
	// GroupGoldDB groups tasks with the same normalised gold on the same
	// database: Spider's paraphrase pairs, which would otherwise let a
	// model see a held-out task's answer in training.
	GroupGoldDB = "gold"
	// GroupSQL groups tasks with the same normalised gold on any database.
	GroupSQL = "sql"
	// GroupDB puts each database's tasks in one split.
	GroupDB = "db"
)

// SplitGroups names each task's group under by (GroupGoldDB, GroupSQL or
// GroupDB), for sqlgym.AssignSplitGroups. Golds are compared by
// sqltext.Normalize, not by the verifier's per-engine Key: split opens no
// database, and a rare false merge only puts two tasks in one split, which
// costs nothing, while a missed merge leaks an answer.
func SplitGroups(tasks []sqlgym.Task, by string) ([]string, error) {
	if by != GroupGoldDB && by != GroupSQL && by != GroupDB {
		return nil, fmt.Errorf("group tasks by %q: want %s, %s or %s", by, GroupGoldDB, GroupSQL, GroupDB)
	}
	out := make([]string, len(tasks))
	for i := range tasks {
		t := &tasks[i]
		switch by {
		case GroupGoldDB:
			out[i] = "gold\x00" + t.DB + "\x00" + sqltext.Normalize(t.SQL)
		case GroupSQL:
			out[i] = "sql\x00" + sqltext.Normalize(t.SQL)
		case GroupDB:
			out[i] = "db\x00" + t.DB
		}
	}
	return out, nil
}

// SharedGold is one gold, on one database, that tasks of both splits carry.
type SharedGold struct {
	DB      string   `json:"db"`
	Train   []string `json:"train"`   // ids of the train tasks with it
	Holdout []string `json:"holdout"` // ids of the held-out tasks with it
}

// SharedGolds lists the golds (same database, same normalised SQL) that a
// task file's train and held-out tasks share, each with its task ids in id
// order, the golds in order of their first held-out id. Tasks without a
// split mark count as neither. A held-out task whose gold a train task
// carries is not a fair test of a model trained on the train split.
func SharedGolds(tasks []sqlgym.Task) []SharedGold {
	keys, _ := SplitGroups(tasks, GroupGoldDB)
	byKey := map[string]*SharedGold{}
	var order []string
	for i := range tasks {
		t := &tasks[i]
		if t.Split != sqlgym.SplitTrain && t.Split != sqlgym.SplitHoldout {
			continue
		}
		g := byKey[keys[i]]
		if g == nil {
			g = &SharedGold{DB: t.DB}
			byKey[keys[i]] = g
			order = append(order, keys[i])
		}
		if t.Split == sqlgym.SplitTrain {
			g.Train = append(g.Train, t.ID)
		} else {
			g.Holdout = append(g.Holdout, t.ID)
		}
	}
	var out []SharedGold
	for _, k := range order {
		g := byKey[k]
		if len(g.Train) == 0 || len(g.Holdout) == 0 {
			continue
		}
		slices.Sort(g.Train)
		slices.Sort(g.Holdout)
		out = append(out, *g)
	}
	slices.SortFunc(out, func(a, b SharedGold) int { return strings.Compare(a.Holdout[0], b.Holdout[0]) })
	return out
}

// SharedGoldWarning is the one-line warning split and eval print for a
// task file whose splits share golds, or "" when they share none.
func SharedGoldWarning(shared []SharedGold) string {
	if len(shared) == 0 {
		return ""
	}
	held := 0
	for _, g := range shared {
		held += len(g.Holdout)
	}
	g := shared[0]
	return fmt.Sprintf("%d held-out tasks have a train task with the same gold on the same database (%d golds; e.g. holdout %s and train %s on %s): a model trained on the train split has seen their answers; re-split with sqlgym split, which keeps such tasks together",
		held, len(shared), g.Holdout[0], g.Train[0], g.DB)
}
