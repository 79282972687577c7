package variants

import (
	"context"
	"math/rand/v2"
	"slices"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/screen"
)

// fuzz builds up to n candidates from every gold's edits at once (plan
// over all the golds' comparisons, seed stream i) and returns up to slots
// of them in greedy set-cover order of the kills no earlier one of them
// has (already: those the aimed variants kill).
func (g *Generator) fuzz(ctx context.Context, n, slots int, already map[string]string, weak []sqlgym.Task, sopt screen.Options, survivors map[string]screen.Mutant, res *DBResult) ([]*candidate, error) {
	if n <= 0 || slots <= 0 {
		return nil, nil
	}
	var golds []string
	for _, t := range weak {
		golds = append(golds, t.Golds()...)
	}
	comps, ths := compsOf(golds, g.schema)
	slot0 := res.CandidatesTried
	var cands []*candidate
	for i := range n {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		p := &planner{schema: g.schema, rng: rand.New(rand.NewPCG(g.opt.Seed, uint64(i))), comps: comps, ths: ths, dialect: g.tgt.dialect(), cons: g.cons, unseen: g.opt.UnseenValues}
		// Built in a slot after the packed variants' (which stay until
		// kept); the candidate is still known by its seed stream.
		c, err := g.makeCandidate(ctx, slot0+i, p.plan())
		if err != nil {
			return nil, err
		}
		res.CandidatesTried++
		if c == nil {
			res.CandidatesDropped++
			continue
		}
		c.index = i
		if c.killed, err = g.kills(ctx, c.url, weak, sopt, survivors); err != nil {
			return nil, err
		}
		g.opt.Log("%s: fuzzed candidate %d: %d groups, %d statements, kills %d of %d", g.name, i, c.groups, len(c.stmts), len(c.killed), len(survivors))
		cands = append(cands, c)
	}
	done := map[string]bool{}
	for id := range already {
		done[id] = true
	}
	var out []*candidate
	for len(out) < slots {
		best, gain := -1, 0
		for ci, c := range cands {
			if slices.Contains(out, c) {
				continue
			}
			k := 0
			for id := range c.killed {
				if !done[id] {
					k++
				}
			}
			if k > gain {
				best, gain = ci, k
			}
		}
		if best < 0 {
			break
		}
		for id := range cands[best].killed {
			done[id] = true
		}
		out = append(out, cands[best])
	}
	return out, nil
}
