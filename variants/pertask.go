package variants

import (
	"context"
	"fmt"
	"strings"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/sqltext"
)

// A variant is shared by every task of its database, and an edit that is
// a fair test for one gold can be none for another. A NULL in
// concert.stadium_id catches a NOT IN answer to "stadiums without a
// concert in 2014" and empties the gold of "stadiums without any
// concert", whose own NOT IN meets it: an empty gold judges nothing but
// whether the answer is empty too, and there the data contradicts what
// the gold's author took it to hold. And a gold whose result depends on
// the order of tied rows on a variant (it may tie on the original too,
// where nothing refuses it) rewards whichever tie an answer happens to
// pick. Only a gold that reads a subquery through NOT IN is left out
// for being emptied: one NULL there empties it, a property of NOT IN the
// gold's author did not meet; a gold emptied otherwise (a group pushed
// under a HAVING threshold by the trim) still tells a wrong answer that
// returns rows. And a gold that returns no row twice on the original but repeats
// one on a variant (a second cartoon of one writer in Italy, a second
// orchestra of one conductor) meets a case its author never saw: whether
// the answer should repeat it is the question's wording, which the data
// does not decide. Such a variant leaves that task's db_variants only, the task
// still judged on the original and its other variants, instead of being
// refused for the whole database.

// Left out reasons.
const (
	leftEmpty    = "empties the gold's NOT IN"
	leftUnstable = "the gold ties or fails there"
	leftRepeats  = "the gold repeats a row there, never on the original"
)

// LeftOut is a variant one task is not judged on, and why.
type LeftOut struct {
	Task    string `json:"task"`
	Variant string `json:"variant"`
	Reason  string `json:"reason"`
}

// leftOut lists, for each task, the variants (indexes into states, the
// gold check of each) it is not judged on: one where a NOT IN gold of the
// task that returns rows on the original returns none, or where a gold is not
// deterministic (a tie under a LIMIT at any depth, a bare column of a
// group; screen.TieCheck, nestedTie) or fails.
func leftOut(tasks []sqlgym.Task, d sqlgym.Dialect, orig map[string]goldState, states []map[string]goldState, rep goldRepeats) map[string]map[int]string {
	out := map[string]map[int]string{}
	for _, t := range tasks {
		for i, st := range states {
			for _, s := range t.GoldsFor(d) {
				why := ""
				switch o, v := orig[s], st[s]; {
				case !v.ok:
					why = leftUnstable
				case o.ok && o.rows > 0 && v.rows == 0 && antiJoins(s):
					why = leftEmpty
				case rep.variants != nil && !rep.orig[s] && rep.variants[i][s]:
					why = leftRepeats
				}
				if why != "" {
					if out[t.ID] == nil {
						out[t.ID] = map[int]string{}
					}
					out[t.ID][i] = why
					break
				}
			}
		}
	}
	return out
}

// assignVariants sets each task's db_variants to the variant URLs it is
// judged on (leftOut) and returns the ones left out, by the variants'
// names. A task left with none names the original alone (orig), since an
// empty list means every database in the folder.
func assignVariants(tasks []sqlgym.Task, d sqlgym.Dialect, orig string, urls, names []string, origStates map[string]goldState, states []map[string]goldState, rep goldRepeats) []LeftOut {
	left := leftOut(tasks, d, origStates, states, rep)
	var out []LeftOut
	for i := range tasks {
		tasks[i].DBVariants = nil
		for j, u := range urls {
			if why, ok := left[tasks[i].ID][j]; ok {
				out = append(out, LeftOut{Task: tasks[i].ID, Variant: names[j], Reason: why})
				continue
			}
			tasks[i].DBVariants = append(tasks[i].DBVariants, u)
		}
		if len(tasks[i].DBVariants) == 0 && len(urls) > 0 {
			tasks[i].DBVariants = []string{orig}
		}
	}
	return out
}

// AssignVariants is the same choice for a database already varied: the
// tasks of the database at orig get, among the variant URLs, those their
// golds are fit to be judged on, every gold run on the original and each
// variant through the generator's gold check. The written folders of an
// earlier generator can be judged as the current one judges its own.
func AssignVariants(ctx context.Context, tasks []sqlgym.Task, d sqlgym.Dialect, orig string, urls []string, lim sqlgym.Limits) ([]LeftOut, error) {
	var golds []string
	seen := map[string]bool{}
	for _, t := range tasks {
		for _, s := range t.GoldsFor(d) {
			if !seen[s] {
				seen[s] = true
				golds = append(golds, s)
			}
		}
	}
	origStates, err := checkGoldsURL(ctx, orig, golds, lim)
	if err != nil {
		return nil, err
	}
	states := make([]map[string]goldState, len(urls))
	for i, u := range urls {
		if states[i], err = checkGoldsURL(ctx, u, golds, lim); err != nil {
			return nil, err
		}
	}
	rep, err := repeatsOn(ctx, orig, urls, golds, lim)
	if err != nil {
		return nil, err
	}
	return assignVariants(tasks, d, orig, urls, urls, origStates, states, rep), nil
}

// goldRepeats says, per gold, whether its result repeats a row on the
// original and on each variant.
type goldRepeats struct {
	orig     map[string]bool
	variants []map[string]bool
}

// repeatsOn runs every gold on the original and each variant and notes
// the results that hold a row twice.
func repeatsOn(ctx context.Context, orig string, urls, golds []string, lim sqlgym.Limits) (goldRepeats, error) {
	var r goldRepeats
	var err error
	if r.orig, err = repeatsURL(ctx, orig, golds, lim); err != nil {
		return r, err
	}
	for _, u := range urls {
		m, err := repeatsURL(ctx, u, golds, lim)
		if err != nil {
			return r, err
		}
		r.variants = append(r.variants, m)
	}
	return r, nil
}

func repeatsURL(ctx context.Context, url string, golds []string, lim sqlgym.Limits) (map[string]bool, error) {
	eng, err := openCandidate(ctx, url)
	if err != nil {
		return nil, fmt.Errorf("repeated rows: open %s: %w", url, err)
	}
	defer eng.Close()
	l := lim.GoldLimits()
	l.MaxRows = maxGoldRows
	out := map[string]bool{}
	for _, g := range golds {
		rs, err := eng.Query(ctx, g, l)
		if err != nil {
			if sqlgym.IsInfra(err) {
				return nil, fmt.Errorf("repeated rows: %w", err)
			}
			continue // a gold that fails is the gold check's to judge
		}
		seen := map[string]bool{}
		for _, row := range rs.Rows {
			var b strings.Builder
			for _, v := range row {
				fmt.Fprintf(&b, "%d\x00%s\x00", v.Kind, v.String())
			}
			if seen[b.String()] {
				out[g] = true
				break
			}
			seen[b.String()] = true
		}
	}
	return out, nil
}

// antiJoins reports whether the gold reads a subquery through NOT IN
// (x NOT IN (SELECT ...)).
func antiJoins(g string) bool {
	var toks []sqltext.Token
	for _, t := range sqltext.Tokens(g) {
		if t.Significant() {
			toks = append(toks, t)
		}
	}
	for i := 0; i+3 < len(toks); i++ {
		if toks[i].IsWord("not") && toks[i+1].IsWord("in") && toks[i+2].IsPunct("(") && toks[i+3].IsWord("select") {
			return true
		}
	}
	return false
}
