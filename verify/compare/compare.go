package compare

import (
	"fmt"
	"sync"

	"github.com/sqlgym/sqlgym"
)

// Options carries what rows alone cannot tell.
type Options struct {
	// GoldOrdered is what the caller found in the gold's SQL. For
	// multiset and strict: the gold has a top-level ORDER BY, which makes
	// row order matter under OrderGoldOrderBy. For testsuite: the
	// lower-cased gold contains "order by" anywhere (the official quirk),
	// which makes row order matter.
	GoldOrdered bool
	// Order (multiset, strict) says when row order matters; the zero
	// value is the mode's default (see OrderPolicy).
	Order OrderPolicy
	// ConditionCols (spider2): only these gold columns, 0-based, must be
	// matched; empty means all.
	ConditionCols []int
	// IgnoreOrder (spider2): sort each column vector before comparing.
	IgnoreOrder bool
}

// Verdict is the outcome of one comparison.
type Verdict struct {
	Match bool
	// Score is 1 or 0, except in f1 mode: partial credit in [0,1].
	Score float64
	// Why says what differed when Match is false: one of the Why*
	// constants.
	Why string
}

var matched = Verdict{Match: true, Score: 1}

func miss(why string) Verdict { return Verdict{Why: why} }

// Gold is a gold result canonicalised once for one mode and options, to be
// compared with many predictions. It is read-only after Prepare and safe
// for concurrent use.
type Gold struct {
	mode Mode
	opt  Options
	rows int
	cols int
	// ordered: row order matters, from the mode, the policy and the gold.
	ordered bool

	// Modes over interned keys (multiset, strict, bird, testsuite).
	key  keyFunc
	dict map[string]uint32
	ids  idTable
	plan *permPlan // multiset, testsuite: column order free
	bag  *bagIndex // strict, bird: the gold's own column order

	dedupOnce sync.Once
	dedup     *permPlan // gold without duplicate rows, only to explain a miss

	ts *tsGold
	s2 *s2Gold
	f1 *f1Gold
}

// Prepare canonicalises gold for mode m. It panics on a mode ParseMode
// would refuse: that is a programming error, not a user's.
func Prepare(m Mode, gold *sqlgym.ResultSet, opt Options) *Gold {
	if !m.valid() {
		panic(fmt.Sprintf("compare: unknown mode %q", m))
	}
	g := &Gold{mode: m, opt: opt, rows: len(gold.Rows), cols: gold.NumCols(), ordered: rowsOrdered(m, opt)}
	switch m {
	case Multiset:
		g.key = multisetKey
		g.dict, g.ids = internGold(gold, g.key)
		g.plan = newPermPlan(&g.ids)
	case Strict, Bird:
		g.key = rlvrKey
		if m == Bird {
			g.key = pyKey
		}
		g.dict, g.ids = internGold(gold, g.key)
		g.bag = newBagIndex(&g.ids, identity(g.cols))
	case TestSuite:
		g.key = pyKey
		g.dict, g.ids = internGold(gold, g.key)
		g.plan = newPermPlan(&g.ids)
		g.ts = newTSGold(gold, &g.ids)
	case Spider2:
		g.s2 = newS2Gold(gold, opt)
	case F1:
		g.f1 = newF1Gold(gold)
	}
	return g
}

// Compare decides whether pred matches gold under mode m. To compare many
// predictions with one gold, Prepare it once instead.
func Compare(m Mode, pred, gold *sqlgym.ResultSet, opt Options) Verdict {
	return Prepare(m, gold, opt).Compare(pred)
}

// Mode is the mode g was prepared for.
func (g *Gold) Mode() Mode { return g.mode }

// StopAfter is StopAfter(g.Mode(), gold) for the prepared gold.
func (g *Gold) StopAfter() int {
	if g.mode == Bird || g.mode == F1 {
		return 0
	}
	return g.rows + 1
}

// Compare decides whether pred matches the prepared gold.
func (g *Gold) Compare(pred *sqlgym.ResultSet) Verdict {
	switch g.mode {
	case Multiset:
		return g.compareMultiset(pred)
	case Strict:
		return g.compareStrict(pred)
	case Bird:
		return g.compareBird(pred)
	case TestSuite:
		return g.compareTestSuite(pred)
	case Spider2:
		return g.s2.compare(pred)
	}
	return g.f1.compare(pred)
}

func (g *Gold) compareMultiset(pred *sqlgym.ResultSet) Verdict {
	pr := len(pred.Rows)
	if g.rows == 0 && pr == 0 && !pred.Capped {
		return matched // empty equals empty, whatever the columns
	}
	if pred.NumCols() != g.cols {
		return miss(WhyColumnCount)
	}
	if pred.Capped || pr != g.rows {
		return miss(WhyRowCount)
	}
	p, ok := lookupPred(pred, g.key, g.dict, true)
	if !ok {
		return miss(WhyValues)
	}
	if g.ordered {
		if g.plan.matchOrdered(&p) {
			return matched
		}
		if g.plan.matchUnordered(&p) {
			return miss(WhyOrder)
		}
	} else if g.plan.matchUnordered(&p) {
		return matched
	}
	return miss(g.explainBag(&p, true))
}

func (g *Gold) compareBird(pred *sqlgym.ResultSet) Verdict {
	if pred.Capped {
		// Duplicates collapse, so rows past the cap could still change
		// the set: undecidable, never a match.
		return miss(WhyCapped)
	}
	pr := len(pred.Rows)
	if pr == 0 && g.rows == 0 {
		return matched // set() == set(), whatever the columns
	}
	if pr == 0 || g.rows == 0 {
		return miss(WhyRowCount)
	}
	if pred.NumCols() != g.cols {
		return miss(WhyColumnCount)
	}
	p, ok := lookupPred(pred, g.key, g.dict, true)
	if !ok || !g.bag.matchSet(&p, identity(g.cols)) {
		return miss(WhyValues)
	}
	return matched
}

// explainBag tells "duplicates" (the rows agree as sets but not as bags)
// from "values" for a prediction of the gold's shape that did not match.
func (g *Gold) explainBag(p *idTable, permute bool) string {
	dp := dedupe(p)
	if dp.rows == p.rows && g.goldDistinct() == g.rows {
		return WhyValues // neither side has duplicates: sets differ too
	}
	g.dedupOnce.Do(func() {
		dg := dedupe(&g.ids)
		g.dedup = newPermPlan(&dg)
	})
	if dp.rows != g.dedup.gold.rows {
		return WhyValues
	}
	if permute {
		if g.dedup.matchUnordered(&dp) {
			return WhyDuplicates
		}
	} else if g.dedup.bag.matchBag(&dp, g.dedup.ord, nil) {
		// The index holds gold columns in ord order; reading the
		// prediction's columns in that same order keeps columns fixed.
		return WhyDuplicates
	}
	return WhyValues
}

func (g *Gold) goldDistinct() int {
	if g.bag != nil {
		return g.bag.distinct()
	}
	return g.plan.bag.distinct()
}
