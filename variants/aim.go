package variants

import (
	"context"
	"math/rand/v2"
	"sort"
	"strings"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/screen"
	"github.com/sqlgym/sqlgym/sqltext"
)

// aim is what one weak task's own edits do: the few groups, planned from
// its golds alone and applied alone to the original, that kill some of
// its surviving mutants (kills). Planning per task keeps a task's edits
// from being diluted among every other gold's, and the halving below
// keeps only the groups the kills need, so variants stay near the
// original's size (each row a variant adds is read by every answer
// judged on it).
type aim struct {
	task   string
	family int // index in planner.aimedFamilies
	groups []group
	kills  map[string]bool
}

// maxAimTrials bounds the builds spent shrinking one task's groups; past
// it the groups left stay, which only makes the variant larger.
const maxAimTrials = 24

// aimAlone is the size up to which a family's groups are tried one by
// one rather than together.
const aimAlone = 12

// aimPlans is how many plans (seed streams) a task gets until one kills.
const aimPlans = 2

// aims plans, for each weak task in order, the edits of its own golds,
// keeps those that kill and shrinks them to what the kills need.
func (g *Generator) aims(ctx context.Context, weak []sqlgym.Task, sopt screen.Options, survivors map[string]screen.Mutant) ([]aim, error) {
	var out []aim
	missed := 0
	for i, t := range weak {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		comps, ths := compsOf(t.Golds(), g.schema)
		read := readTables(t.Golds())
		var found []aim
		for k := 0; k < aimPlans && len(found) == 0; k++ {
			// Invented keys and group names are numbered per plan, so
			// two tasks' edits never invent the same one.
			stream := i*aimPlans + k
			p := &planner{schema: g.schema, rng: rand.New(rand.NewPCG(g.opt.Seed, uint64(1<<32+stream))), comps: comps, ths: ths, serial: stream * 100_000, dialect: g.tgt.dialect(), cons: g.cons, unseen: g.opt.UnseenValues}
			for fi, fam := range p.aimedFamilies(t.SQL) {
				var gs []group
				for _, gr := range fam {
					// Edits of tables the gold does not read cannot
					// change its result.
					if tb := groupTable(gr); tb == "" || read[tb] {
						gs = append(gs, gr)
					}
				}
				if len(gs) == 0 {
					continue
				}
				if len(gs) <= aimAlone {
					// Few groups, often computed from the data (a
					// group resized, a row on a subquery's value),
					// which two of undo: each is tried alone.
					for _, gr := range gs {
						kills, err := g.trialKills(ctx, []group{gr}, t, sopt, survivors)
						if err != nil {
							return nil, err
						}
						if len(kills) > 0 {
							found = append(found, aim{task: t.ID, family: fi, groups: []group{gr}, kills: kills})
						}
					}
					continue
				}
				kills, err := g.trialKills(ctx, gs, t, sopt, survivors)
				if err != nil {
					return nil, err
				}
				if len(kills) == 0 {
					continue
				}
				if gs, err = g.shrink(ctx, gs, t, kills, sopt, survivors); err != nil {
					return nil, err
				}
				found = append(found, aim{task: t.ID, family: fi, groups: gs, kills: kills})
			}
		}
		if len(found) == 0 {
			missed++
			continue
		}
		out = append(out, cover(found)...)
	}
	union := 0
	for _, a := range out {
		union += len(a.kills)
	}
	g.opt.Log("%s: %d of %d weak tasks have own edits that kill (%d aims, %d mutants), %d have none", g.name, len(weak)-missed, len(weak), len(out), union, missed)
	return out, nil
}

// shrink drops groups, a chunk at a time from halves down to single
// groups, while the rest still kill every mutant in want.
func (g *Generator) shrink(ctx context.Context, gs []group, t sqlgym.Task, want map[string]bool, sopt screen.Options, survivors map[string]screen.Mutant) ([]group, error) {
	trials := 0
	for n := 2; len(gs) > 1 && trials < maxAimTrials; {
		size := (len(gs) + n - 1) / n
		dropped := false
		for lo := 0; lo < len(gs) && trials < maxAimTrials; lo += size {
			hi := min(lo+size, len(gs))
			rest := append(append([]group(nil), gs[:lo]...), gs[hi:]...)
			if len(rest) == 0 {
				continue
			}
			trials++
			k, err := g.trialKills(ctx, rest, t, sopt, survivors)
			if err != nil {
				return nil, err
			}
			if covers(k, want) {
				gs, dropped = rest, true
				n = max(n-1, 2)
				break
			}
		}
		if !dropped {
			if size == 1 {
				break
			}
			n = min(2*n, len(gs))
		}
	}
	return gs, nil
}

// cover keeps, of one task's aims, those that add a kill, most kills
// first (ties in family order).
func cover(as []aim) []aim {
	done := map[string]bool{}
	var out []aim
	for {
		best, gain := -1, 0
		for i, a := range as {
			n := 0
			for id := range a.kills {
				if !done[id] {
					n++
				}
			}
			if n > gain {
				best, gain = i, n
			}
		}
		if best < 0 {
			return out
		}
		for id := range as[best].kills {
			done[id] = true
		}
		out = append(out, as[best])
	}
}

func covers(have, want map[string]bool) bool {
	for id := range want {
		if !have[id] {
			return false
		}
	}
	return true
}

// trialKills builds the original with gs on the scratch copy of slot 0
// (the packing's first variant, built only after every aim is found) and
// returns the surviving mutants of t it kills there. kills opens an engine
// of its own on it, never the catalog's, which keeps an engine per URL
// for good while the scratch copy is rebuilt for every trial.
func (g *Generator) trialKills(ctx context.Context, gs []group, t sqlgym.Task, sopt screen.Options, survivors map[string]screen.Mutant) (map[string]bool, error) {
	url, _, err := g.tgt.build(ctx, 0, true, gs)
	if err != nil {
		return nil, err
	}
	return g.kills(ctx, url, []sqlgym.Task{t}, sopt, survivors)
}

// readTables is the lower-cased words of the golds: a superset of the
// tables they read.
func readTables(golds []string) map[string]bool {
	out := map[string]bool{}
	for _, s := range golds {
		for _, tok := range sqltext.Tokens(s) {
			if tok.Kind == sqltext.Word || tok.Kind == sqltext.QuotedIdent {
				out[strings.ToLower(strings.Trim(tok.Text, "\"`[]"))] = true
			}
		}
	}
	return out
}

// sortedIDs is a set's members in order.
func sortedIDs(set map[string]bool) []string {
	out := make([]string, 0, len(set))
	for id := range set {
		out = append(out, id)
	}
	sort.Strings(out)
	return out
}
