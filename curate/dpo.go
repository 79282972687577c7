package curate

import (
	"math"
	"regexp"
	"slices"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/failure"
)

// Where a pair's chosen side came from.
const (
	// PairMined: the model's own most frequent correct answer.
	PairMined = "mined"
	// PairGoldFallback: the model never answered right; the gold stands in.
	PairGoldFallback = "gold_fallback"
)

// DPOOptions are the rules of `curate dpo`.
type DPOOptions struct {
	// GoldFallbackCap is the largest share of the result that gold-fallback
	// pairs may take, in [0, 1).
	GoldFallbackCap float64 `json:"gold_fallback_cap"`
	Seed            string  `json:"seed"`
}

// Validate checks the cap's range.
func (o DPOOptions) Validate() error {
	if o.GoldFallbackCap < 0 || o.GoldFallbackCap >= 1 || math.IsNaN(o.GoldFallbackCap) {
		return sqlgym.Userf("give --gold-fallback-cap in [0, 1), e.g. 0.25", "--gold-fallback-cap %g: a share of the result, at least 0 and below 1", o.GoldFallbackCap)
	}
	return nil
}

// Pair is one preference pair.
type Pair struct {
	Index         int // into the stats
	Chosen        string
	Rejected      string
	Source        string // PairMined or PairGoldFallback
	ChosenCount   int    // how many samples wrote the chosen answer (0 for gold)
	RejectedCount int
	RejectedClass failure.Class
}

// DPOCounts says what mining left out.
type DPOCounts struct {
	HeldOut        int `json:"holdout_skipped"`
	NoSample       int `json:"no_scored_sample"`
	AllRight       int `json:"all_right"`
	NoWrongSQL     int `json:"no_wrong_sql"`
	IdenticalSides int `json:"identical_sides"`
	CappedFallback int `json:"gold_fallback_capped"`
}

// MinePairs makes at most one pair per task from the model's own samples:
// the most frequent wrong answer (by NormalizeSQL) is rejected; the most
// frequent correct one is chosen, or the gold when no sample is right. A
// task with no wrong answer that has SQL gives no pair (an empty rejected
// side teaches nothing), nor one whose two sides normalise equal.
// Gold-fallback pairs are then capped at GoldFallbackCap of the result:
// with m mined pairs, floor(m x cap / (1 - cap)) of them, the first in the
// seed order.
func MinePairs(stats []TaskStats, o DPOOptions) ([]Pair, DPOCounts) {
	var counts DPOCounts
	var mined, fallback []Pair
	for i := range stats {
		t := &stats[i]
		if t.Task.Split == sqlgym.SplitHoldout {
			counts.HeldOut++
			continue
		}
		if t.N == 0 && len(t.Correct) == 0 && len(t.Wrong) == 0 {
			counts.NoSample++
			continue
		}
		rej, rn := Mode(t.Wrong)
		if rej == "" {
			if len(t.Correct) > 0 {
				counts.AllRight++
			} else {
				counts.NoWrongSQL++
			}
			continue
		}
		p := Pair{Index: i, Rejected: rej, RejectedCount: rn, RejectedClass: classOf(t, rej)}
		if ch, cn := Mode(t.Correct); ch != "" {
			p.Chosen, p.ChosenCount, p.Source = ch, cn, PairMined
		} else {
			p.Chosen, p.Source = t.Task.SQL, PairGoldFallback
		}
		if NormalizeSQL(p.Chosen) == NormalizeSQL(p.Rejected) {
			counts.IdenticalSides++
			continue
		}
		if p.Source == PairMined {
			mined = append(mined, p)
		} else {
			fallback = append(fallback, p)
		}
	}
	budget := int(math.Floor(float64(len(mined)) * o.GoldFallbackCap / (1 - o.GoldFallbackCap)))
	if len(fallback) > budget {
		idx := make([]int, len(fallback))
		for j, p := range fallback {
			idx[j] = p.Index
		}
		keep := map[int]bool{}
		for _, i := range seedOrder(stats, idx, o.Seed)[:budget] {
			keep[i] = true
		}
		counts.CappedFallback = len(fallback) - budget
		kept := fallback[:0]
		for _, p := range fallback {
			if keep[p.Index] {
				kept = append(kept, p)
			}
		}
		fallback = kept
	}
	// Task order, whatever the source: a trainer shuffles anyway, and a
	// diff between two curations then reads task by task.
	out := append(mined, fallback...)
	slices.SortFunc(out, func(a, b Pair) int { return a.Index - b.Index })
	return out, counts
}

// classOf is the failure class the first sample that wrote sql got.
func classOf(t *TaskStats, sql string) failure.Class {
	k := NormalizeSQL(sql)
	for j, w := range t.Wrong {
		if NormalizeSQL(w) == k && j < len(t.WrongClasses) {
			return t.WrongClasses[j]
		}
	}
	return ""
}

// aliasStyle matches BIRD's house style of table aliases, T1, T2, ...:
// a surface feature a preference set must not teach by having it on one
// side only.
var aliasStyle = regexp.MustCompile(`(?i)\bT\d+\b`)

// StyleAudit compares the two sides' surface style over a pair set.
type StyleAudit struct {
	AliasRateChosen   float64 `json:"alias_rate_chosen"`
	AliasRateRejected float64 `json:"alias_rate_rejected"`
	// AliasRateChosenMined leaves the gold fallbacks out: the model's own
	// style on both sides.
	AliasRateChosenMined float64 `json:"alias_rate_chosen_mined"`
	MeanCharsChosen      float64 `json:"mean_chars_chosen"`
	MeanCharsRejected    float64 `json:"mean_chars_rejected"`
}

// Audit measures the style gap between the chosen and rejected sides.
func Audit(pairs []Pair) StyleAudit {
	var a StyleAudit
	if len(pairs) == 0 {
		return a
	}
	mined := 0
	for _, p := range pairs {
		if aliasStyle.MatchString(p.Chosen) {
			a.AliasRateChosen++
			if p.Source == PairMined {
				a.AliasRateChosenMined++
			}
		}
		if p.Source == PairMined {
			mined++
		}
		if aliasStyle.MatchString(p.Rejected) {
			a.AliasRateRejected++
		}
		a.MeanCharsChosen += float64(len(p.Chosen))
		a.MeanCharsRejected += float64(len(p.Rejected))
	}
	n := float64(len(pairs))
	a.AliasRateChosen /= n
	a.AliasRateRejected /= n
	a.MeanCharsChosen /= n
	a.MeanCharsRejected /= n
	if mined > 0 {
		a.AliasRateChosenMined /= float64(mined)
	}
	return a
}
