package variants

import (
	"cmp"
	"context"
	"slices"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/screen"
)

// assembled is one kept variant with the kills no earlier one has.
type assembled struct {
	c        *candidate
	newKills int
}

// assemble packs the aims into at most MaxVariants variants, building at
// most Candidates. The first gets every aim's groups; pack takes out the
// aims that break a gold, and the variant is screened for what it kills. Edits of different
// tasks can undo each other (rows added to one group for one task resize
// it for another), so the aims with a kill still missing go to the next
// variant, on their own: fewer edits, less interference. A variant that
// adds no kill ends the packing, so there are only as many variants as
// the kills need.
func (g *Generator) assemble(ctx context.Context, aims []aim, weak []sqlgym.Task, sopt screen.Options, survivors map[string]screen.Mutant, res *DBResult) ([]assembled, map[string]int, error) {
	killedBy := map[string]int{} // mutant id -> index of the first variant killing it
	var kept []assembled
	pending := aims
	for idx := 0; idx < g.opt.Candidates && len(kept) < g.opt.MaxVariants && len(pending) > 0; idx++ {
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		c, err := g.pack(ctx, idx, pending)
		if err != nil {
			return nil, nil, err
		}
		res.CandidatesTried++
		if c == nil {
			res.CandidatesDropped++
			break
		}
		if c.killed, err = g.kills(ctx, c.url, weak, sopt, survivors); err != nil {
			return nil, nil, err
		}
		gain := 0
		for _, id := range sortedIDs(c.killed) {
			if _, done := killedBy[id]; !done {
				gain++
			}
		}
		g.opt.Log("%s: variant try %d: %d aims, %d groups kept, %d statements, kills %d (%d new) of %d", g.name, idx,
			len(pending), c.groups, len(c.stmts), len(c.killed), gain, len(survivors))
		if gain == 0 {
			break
		}
		for id := range c.killed {
			if _, done := killedBy[id]; !done {
				killedBy[id] = len(kept)
			}
		}
		kept = append(kept, assembled{c: c, newKills: gain})
		var next []aim
		for _, a := range pending {
			for id := range a.kills {
				if _, done := killedBy[id]; !done {
					next = append(next, a)
					break
				}
			}
		}
		pending = next
	}
	return kept, killedBy, nil
}

// pack builds the aims' groups on the original, family by family in
// familyOrder, and takes out the aims that break a gold: aims on tables
// no broken gold reads go in untried, the others are added half by half,
// a half kept when the broken golds stay fine with it. Aims, not groups,
// are the unit, since an aim's groups kill together. A last check of
// every gold decides; nil when one still breaks after maxPackRounds.
func (g *Generator) pack(ctx context.Context, idx int, as []aim) (*candidate, error) {
	for round := 0; round < maxPackRounds; round++ {
		url, stmts, err := g.tgt.build(ctx, idx, false, groupsOf(as))
		if err != nil {
			return nil, err
		}
		st, err := g.tgt.golds(ctx, url, g.golds, g.opt.Limits)
		if err != nil {
			return nil, err
		}
		bad := broken(g.goldStates, st)
		if len(bad) == 0 {
			return &candidate{index: idx, url: url, stmts: stmts, groups: len(groupsOf(as)), golds: st}, nil
		}
		g.opt.Log("%s: variant try %d, round %d: %d aims break %d golds", g.name, idx, round, len(as), len(bad))
		read := readTables(bad)
		var accepted, suspects []aim
		for _, a := range as {
			if slices.ContainsFunc(a.groups, func(gr group) bool { t := groupTable(gr); return t == "" || read[t] }) {
				suspects = append(suspects, a)
			} else {
				accepted = append(accepted, a)
			}
		}
		accepted, err = addByHalves(accepted, suspects, func() bool { return true }, func(with []aim) (bool, error) {
			trial, _, err := g.tgt.build(ctx, idx, true, groupsOf(with))
			if err != nil {
				return false, err
			}
			st, err := g.tgt.golds(ctx, trial, bad, g.opt.Limits)
			if err != nil {
				return false, err
			}
			return !slices.ContainsFunc(bad, func(b string) bool { return !st[b].ok }), nil
		})
		if err != nil {
			return nil, err
		}
		as = accepted
	}
	return nil, nil
}

// groupsOf is the aims' groups in family order (stable within a family):
// moves out of a filter first, so that the rows later families place on
// a boundary stay there; edits that compute their rows from the data
// (group resizes, ties with a subquery) last, on the data the others
// left.
func groupsOf(as []aim) []group {
	var out []group
	for _, f := range familyOrder {
		var fam []group
		for _, a := range as {
			if a.family == f {
				fam = append(fam, a.groups...)
			}
		}
		slices.SortStableFunc(fam, func(a, b group) int { return cmp.Compare(a.rank, b.rank) })
		out = append(out, fam...)
	}
	return out
}

// maxPackRounds bounds the repairs of one variant: each round checks only
// the golds the last build broke, so taking aims out can break another,
// found by the next round.
const maxPackRounds = 8
