package verify

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/sqltext"
	"github.com/sqlgym/sqlgym/verify/compare"
)

// planner plans a batch's answers: which databases each mode checks an
// answer on and which statements run there. It resolves each database's
// variants once per batch and keys each distinct text once per dialect.
type planner struct {
	v      *Verifier
	urls   map[string][]string // task DB name -> variant URLs (first is the database itself)
	urlErr map[string]error
	// norm holds each candidate's key: tokenised by its engine's own rules,
	// so that texts merge only where that engine reads the same statement.
	norm map[normKey]string
}

type normKey struct {
	d sqlgym.Dialect
	q string
}

func newPlanner(v *Verifier) *planner {
	return &planner{v: v, urls: map[string][]string{}, urlErr: map[string]error{}}
}

// plan sets every job's plans, one per mode, or its early failure when a
// database does not resolve.
func (pl *planner) plan(jobs []*answerJob, modes []compare.Mode) {
	// Sized for the batch: growing this map showed in the profile.
	pl.norm = make(map[normKey]string, len(jobs))
	for _, j := range jobs {
		for _, m := range modes {
			ts := m == compare.TestSuite
			us, err := pl.variants(j.task, ts)
			if err != nil {
				j.fail = &earlyFail{sqlgym.OutcomeGoldError, fmt.Sprintf("database %q: %v", j.task.DB, err)}
				break
			}
			p := modePlan{mode: m}
			pred := j.sql
			// Both queries as the official test-suite evaluation rewrites
			// them before running them (see sqltext.TestSuitePred).
			if ts {
				pred = sqltext.TestSuitePred(pred, pl.v.cfg.KeepDistinct)
			}
			for _, u := range us {
				// Each database runs the gold written for its engine
				// (Task.GoldByDialect), so one task set serves a database
				// loaded into several engines.
				golds := j.task.GoldsFor(sqlgym.URLDialect(u))
				if ts {
					for i, g := range golds {
						golds[i] = sqltext.TestSuiteGold(g, pl.v.cfg.KeepDistinct)
					}
				}
				p.checks = append(p.checks, variantCheck{url: u, golds: golds, pred: pred, key: execKey{u, pl.normalize(u, pred)}})
			}
			j.plans = append(j.plans, p)
		}
	}
}

// variants returns the URLs an answer to t is checked on: the task's
// database alone, or with the test-suite mode or Config.Variants the
// database and its variants (the task's own list, else the catalog's).
func (pl *planner) variants(t *sqlgym.Task, testsuite bool) ([]string, error) {
	key := t.DB
	testsuite = testsuite || pl.v.cfg.Variants
	if testsuite {
		// A task's own db_variants may differ from its database's other
		// tasks' (sqlgym variants lists for each task the variants that
		// kill its own mutants, and leaves out of one task a variant that
		// empties its gold), so they are part of the key.
		key = "\x00ts\x00" + t.DB + "\x00" + strings.Join(t.DBVariants, "\x00")
	}
	if testsuite && len(t.DBVariants) == 0 {
		// The database's variants, or the task's own list where it has
		// one (Databases.TaskVariants): whether it does is known only by
		// asking, so every task is kept apart.
		key += "\x00task\x00" + t.ID
	}
	if u, ok := pl.urls[key]; ok || pl.urlErr[key] != nil {
		return u, pl.urlErr[key]
	}
	var us []string
	var err error
	dbs := pl.v.dbs
	switch {
	case !testsuite:
		var u string
		u, err = dbs.Resolve(t.DB)
		us = []string{u}
	case len(t.DBVariants) > 0:
		var u string
		u, err = dbs.Resolve(t.DB)
		us = []string{u}
		for _, name := range t.DBVariants {
			if err != nil {
				break
			}
			var vu string
			vu, err = dbs.Resolve(name)
			// The original named among the variants (a task judged on it
			// alone) is judged once.
			if vu != u && !sameFile(vu, u) {
				us = append(us, vu)
			}
		}
	default:
		us, err = dbs.TaskVariants(t.DB, t.ID)
	}
	if err != nil {
		pl.urlErr[key] = err
		return nil, err
	}
	pl.urls[key] = us
	return us, nil
}

// normalize is the candidate key of q on the database at u.
func (pl *planner) normalize(u, q string) string {
	k := normKey{sqlgym.URLDialect(u), q}
	n, ok := pl.norm[k]
	if !ok {
		n = sqltext.Key(k.d, q)
		pl.norm[k] = n
	}
	return n
}

// sameFile reports whether two SQLite or DuckDB URLs name one file, the
// one by a relative path and the other by an absolute one.
func sameFile(a, b string) bool {
	pa, pb := sqlgym.VariantFile(a), sqlgym.VariantFile(b)
	if pa == "" || pb == "" {
		return false
	}
	aa, err1 := filepath.Abs(pa)
	ab, err2 := filepath.Abs(pb)
	return err1 == nil && err2 == nil && aa == ab
}
