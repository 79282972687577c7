package variants

import (
	"context"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/sqlgym/sqlgym/engine/sqlite"
	"github.com/sqlgym/sqlgym/sqltext"
)

// candidate is one fuzzed database: the original file with some groups of
// changes applied, every gold still running and deterministic on it.
type candidate struct {
	index  int
	url    string
	stmts  []string // the statements that applied, in order: they rebuild it
	groups int
	golds  map[string]goldState
	killed map[string]bool // mutant ids it kills
	// thinned is the original rows the thinning deleted (trim.go), and
	// the first thinStmts of stmts delete them.
	thinned, thinStmts int
	// rows is its row count (set by the trim), trimmed the original rows
	// the trim deleted from it in trials builds.
	rows    int64
	trimmed int
	trials  int
}

func copyFile(dst, src string) error {
	in, err := os.Open(src)
	if err != nil {
		return fmt.Errorf("copy database: %w", err)
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return fmt.Errorf("copy database: %w", err)
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return fmt.Errorf("copy database: %w", err)
	}
	return out.Close()
}

// scratchPragmas make an edit of a candidate file skip what only a
// database that must survive a crash needs: the rollback journal is kept
// in memory (savepoints still roll back) and nothing is synced to disk.
// A candidate is rebuilt from the original for every trial, and one
// broken by a crash is in the candidates' folder, which the next run
// removes; a kept variant's digest is recorded and checked on resume.
// Neither pragma changes the file's bytes (only WAL would), so the
// variants are the same files; it saved a fifth of a build's CPU on
// Spider's concert_singer, and the syncs' wall time.
var scratchPragmas = []string{"PRAGMA journal_mode = MEMORY", "PRAGMA synchronous = OFF"}

// scratchEdit is sqlite.EditGuarded on a candidate file, under
// scratchPragmas and the guards the statements need (guardFilter).
func scratchEdit(ctx context.Context, path string, guards *guardFilter, stmts []string) ([]bool, error) {
	return sqlite.EditGuarded(ctx, path, append(slices.Clone(scratchPragmas), guards.forStmts(stmts)...), stmts)
}

// build applies the groups' statements to the SQLite copy of the original
// at path, each in its own savepoint (sqlite.EditGuarded, under the
// guards of sqliteGuards), and returns the statements that applied.
func build(ctx context.Context, path string, guards *guardFilter, gs []group) ([]string, error) {
	var stmts []string
	for _, g := range gs {
		stmts = append(stmts, g.stmts...)
	}
	applied, err := scratchEdit(ctx, path, guards, stmts)
	if err != nil {
		return nil, err
	}
	var kept []string
	for i, ok := range applied {
		if ok {
			kept = append(kept, stmts[i])
		}
	}
	return kept, nil
}

// makeCandidate applies every group, then takes out the groups that break
// a gold: it checks only the broken golds while it looks, and each group
// changes one table, so suspects are the groups on the tables those golds
// read, found by halving (repair). A last check of every gold decides; a
// candidate still breaking one after two repairs is not used (nil).
func (g *Generator) makeCandidate(ctx context.Context, idx int, gs []group) (*candidate, error) {
	url, stmts, err := g.tgt.build(ctx, idx, false, gs)
	if err != nil {
		return nil, err
	}
	st, err := g.tgt.golds(ctx, url, g.golds, g.opt.Limits)
	if err != nil {
		return nil, err
	}
	bad := broken(g.goldStates, st)
	for round := 0; len(bad) > 0 && round < 2; round++ {
		keep, err := g.repair(ctx, idx, gs, bad)
		if err != nil {
			return nil, err
		}
		gs = keep
		if url, stmts, err = g.tgt.build(ctx, idx, false, gs); err != nil {
			return nil, err
		}
		if st, err = g.tgt.golds(ctx, url, g.golds, g.opt.Limits); err != nil {
			return nil, err
		}
		bad = broken(g.goldStates, st)
	}
	if len(bad) > 0 {
		return nil, nil
	}
	return &candidate{index: idx, url: url, stmts: stmts, groups: len(gs), golds: st}, nil
}

// repair returns the groups kept: added half by half, a half kept when the
// golds in bad stay fine with it.
func (g *Generator) repair(ctx context.Context, idx int, gs []group, bad []string) ([]group, error) {
	// Each group changes one table; a group on a table no broken gold
	// reads cannot be what broke them, and goes in untried.
	read := map[string]bool{}
	for _, b := range bad {
		for _, tok := range sqltext.Tokens(b) {
			if tok.Kind == sqltext.Word || tok.Kind == sqltext.QuotedIdent {
				read[strings.ToLower(strings.Trim(tok.Text, "\"`[]"))] = true
			}
		}
	}
	var accepted, suspects []group
	for _, gr := range gs {
		if t := groupTable(gr); t != "" && !read[t] {
			accepted = append(accepted, gr)
		} else {
			suspects = append(suspects, gr)
		}
	}
	// Halving costs a build per trial: past maxTrials the groups not yet
	// tried are left out, which only makes the candidate smaller.
	trials := 0
	more := func() bool { trials++; return trials <= maxTrials }
	return addByHalves(accepted, suspects, more, func(with []group) (bool, error) {
		trial, _, err := g.tgt.build(ctx, idx, true, with)
		if err != nil {
			return false, err
		}
		st, err := g.tgt.golds(ctx, trial, bad, g.opt.Limits)
		if err != nil {
			return false, err
		}
		return !slices.ContainsFunc(bad, func(b string) bool { return !st[b].ok }), nil
	})
}

// maxTrials bounds the builds one repair makes.
const maxTrials = 48

// groupTable is the table a group's statements change ("" when unsure).
func groupTable(g group) string {
	if len(g.stmts) == 0 {
		return ""
	}
	s := g.stmts[0]
	for _, p := range []string{"INSERT INTO \"", "UPDATE \""} {
		if i := strings.Index(s, p); i >= 0 {
			rest := s[i+len(p):]
			if j := strings.Index(rest, "\""); j >= 0 {
				return strings.ToLower(rest[:j])
			}
		}
	}
	return ""
}

// nonEmpty reports whether a gold returned rows on the original or
// on any kept variant.
func nonEmpty(orig map[string]goldState, kept []*candidate, gold string) bool {
	if orig[gold].rows > 0 {
		return true
	}
	for _, c := range kept {
		if c.golds[gold].rows > 0 {
			return true
		}
	}
	return false
}
