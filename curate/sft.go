package curate

import (
	"math"
	"slices"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/failure"
)

// Source is where an SFT target comes from.
type Source string

const (
	// SourceGold: the task's gold query.
	SourceGold Source = "gold"
	// SourceSelf: the model's own most frequent correct answer
	// (self-distillation on verified traces).
	SourceSelf Source = "self"
	// SourceBoth: the model's own correct answer where it has one, else
	// the gold.
	SourceBoth Source = "both"
)

// ParseSource reads --source.
func ParseSource(s string) (Source, error) {
	switch Source(s) {
	case SourceGold, SourceSelf, SourceBoth:
		return Source(s), nil
	}
	return "", sqlgym.Userf("use --source gold, self or both", "--source %q: unknown", s)
}

// Reasons a task is in an SFT set.
const (
	ReasonFailed = "failed"      // the model fails it
	ReasonReplay = "replay"      // the model solves it: kept so the skill stays
	ReasonExtra  = "class_extra" // an extra example of a frequent failure class
	// ReasonEpisode: a correct agent episode (--agent).
	ReasonEpisode = "episode"
)

// SFTOptions are the selection rules of `curate sft`.
type SFTOptions struct {
	// N caps the failed and replay examples together (0: every failed
	// task, and the replay share of that).
	N int `json:"n"`
	// Replay is the share of the failed-plus-replay result taken from
	// tasks the model solves, in [0, 1).
	Replay float64 `json:"replay"`
	// PerClass is how many extra examples each of the TopClasses most
	// frequent failure classes gets.
	PerClass   int `json:"per_class"`
	TopClasses int `json:"top_classes"`
	// FailBelow: a task is failed when its rate is below it; 0 means only
	// tasks with no correct sample.
	FailBelow float64 `json:"fail_below"`
	Source    Source  `json:"source"`
	Seed      string  `json:"seed"`
	// Agent makes examples of correct agent episodes.
	Agent bool `json:"agent,omitempty"`
}

// Pick is one example the selection chose.
type Pick struct {
	Index  int // into the stats
	Reason string
	Class  failure.Class // the task's most frequent failure class
	Source Source        // gold or self: where Target came from
	Target string
	// Episode is the trajectory of an agent example.
	Episode int
}

// SFTCounts says what the selection saw and left out.
type SFTCounts struct {
	Failed       int             `json:"failed_tasks"`
	Solved       int             `json:"solved_tasks"`
	HeldOut      int             `json:"holdout_skipped"`
	NoSample     int             `json:"no_scored_sample"`
	NoTarget     int             `json:"no_target"`
	ReplayShort  int             `json:"replay_short"`
	ExtraClasses []failure.Class `json:"extra_classes,omitempty"`
}

// Validate checks the options' ranges.
func (o SFTOptions) Validate() error {
	switch {
	case o.Replay < 0 || o.Replay >= 1 || math.IsNaN(o.Replay):
		return sqlgym.Userf("give --replay in [0, 1), e.g. 0.2", "--replay %g: the replay share must be at least 0 and below 1", o.Replay)
	case o.N < 0:
		return sqlgym.Userf("give --n 0 (everything selected) or more", "--n %d", o.N)
	case o.PerClass < 0 || o.TopClasses < 0:
		return sqlgym.Userf("give --per-class and --top-classes of 0 or more", "--per-class %d --top-classes %d", o.PerClass, o.TopClasses)
	case o.FailBelow < 0 || o.FailBelow > 1:
		return sqlgym.Userf("give --fail-below in [0, 1]", "--fail-below %g", o.FailBelow)
	}
	_, err := ParseSource(string(o.Source))
	return err
}

// target is a task's SFT target under the source rule, or "" for none.
func target(t *TaskStats, src Source) (string, Source) {
	self, _ := Mode(t.Correct)
	switch {
	case src != SourceGold && self != "":
		return self, SourceSelf
	case src != SourceSelf && t.Task.SQL != "":
		return t.Task.SQL, SourceGold
	}
	return "", ""
}

// SelectSFT chooses the supervised set:
//
//  1. failed tasks (no correct sample, or a rate below FailBelow), in the
//     seed order, all of them, or with N the first N - round(N x Replay);
//  2. replay: solved tasks in the seed order, round(N x Replay) of them
//     with N, else the Replay share of the result,
//     round(failed x Replay / (1 - Replay));
//  3. extras: for each of the TopClasses classes that are the most
//     frequent failure class of the most chosen failed tasks, PerClass more
//     examples of tasks of that class: failed tasks N left out first, then
//     the chosen ones again, in the seed order, round and round.
//
// Held-out tasks and tasks without a target (no correct sample under
// --source self) are never chosen. Agent selection (o.Agent) takes the
// tasks with a correct episode, one example each (the first correct
// episode), all of them or with N the first N in the seed order: an agent
// run's correct episodes are the supervision, whatever the task's rate.
func SelectSFT(stats []TaskStats, o SFTOptions) ([]Pick, SFTCounts) {
	var counts SFTCounts
	var failed, solved []int
	tgt := make([]string, len(stats))
	src := make([]Source, len(stats))
	for i := range stats {
		t := &stats[i]
		switch {
		case t.Task.Split == sqlgym.SplitHoldout:
			counts.HeldOut++
			continue
		case t.N == 0:
			counts.NoSample++
			continue
		}
		isFailed := t.C == 0 || o.FailBelow > 0 && t.Rate() < o.FailBelow
		if isFailed {
			counts.Failed++
		} else {
			counts.Solved++
		}
		if o.Agent {
			if len(t.Episodes) == 0 {
				counts.NoTarget++
				continue
			}
			tgt[i], src[i] = t.Episodes[0].SQL, SourceSelf
		} else if tgt[i], src[i] = target(t, o.Source); tgt[i] == "" {
			counts.NoTarget++
			continue
		}
		if isFailed {
			failed = append(failed, i)
		} else {
			solved = append(solved, i)
		}
	}
	failed, solved = seedOrder(stats, failed, o.Seed), seedOrder(stats, solved, o.Seed+"\x00replay")
	pick := func(i int, reason string) Pick {
		return Pick{Index: i, Reason: reason, Class: stats[i].TopClass(), Source: src[i], Target: tgt[i]}
	}
	var picks []Pick
	if o.Agent {
		eps := seedOrder(stats, append(failed, solved...), o.Seed)
		if o.N > 0 {
			eps = eps[:min(len(eps), o.N)]
		}
		for _, i := range eps {
			picks = append(picks, pick(i, ReasonEpisode))
		}
		return picks, counts
	}
	chosen := failed
	replayWant := 0
	if o.N > 0 {
		replayWant = int(math.Round(float64(o.N) * o.Replay))
		chosen = failed[:min(len(failed), o.N-replayWant)]
	} else if o.Replay > 0 {
		replayWant = int(math.Round(float64(len(failed)) * o.Replay / (1 - o.Replay)))
	}
	for _, i := range chosen {
		picks = append(picks, pick(i, ReasonFailed))
	}
	replay := solved[:min(len(solved), replayWant)]
	counts.ReplayShort = replayWant - len(replay)
	for _, i := range replay {
		picks = append(picks, pick(i, ReasonReplay))
	}
	if o.PerClass > 0 && o.TopClasses > 0 {
		counts.ExtraClasses = topClasses(stats, chosen, o.TopClasses)
		in := map[int]bool{}
		for _, i := range chosen {
			in[i] = true
		}
		for _, c := range counts.ExtraClasses {
			var left, again []int
			for _, i := range failed {
				if stats[i].TopClass() != c {
					continue
				}
				if in[i] {
					again = append(again, i)
				} else {
					left = append(left, i)
				}
			}
			pool := append(left, again...)
			for k := 0; k < o.PerClass && len(pool) > 0; k++ {
				picks = append(picks, pick(pool[k%len(pool)], ReasonExtra))
			}
		}
	}
	return picks, counts
}

// topClasses ranks failure classes by how many of the tasks have it as
// their most frequent class, ties in the taxonomy's order.
func topClasses(stats []TaskStats, idx []int, n int) []failure.Class {
	count := map[failure.Class]int{}
	for _, i := range idx {
		if c := stats[i].TopClass(); c != "" {
			count[c]++
		}
	}
	var cs []failure.Class
	for _, c := range failure.Classes {
		if count[c] > 0 {
			cs = append(cs, c)
		}
	}
	slices.SortStableFunc(cs, func(a, b failure.Class) int { return count[b] - count[a] })
	return cs[:min(n, len(cs))]
}
