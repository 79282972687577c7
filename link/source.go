package link

import (
	"context"
	"fmt"
	"strings"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/internal/memo"
)

// Source gives every prompt renderer (eval, the agent, export, the
// episode API) the schema text of a task under one mode, preparing each
// database once. Safe for concurrent use.
//
// The value index lives in memory, per process, not on disk: it is built
// by one SELECT DISTINCT ... LIMIT per text column, about a second for all
// 19 Spider dev databases on this project's machine (docs/link.md), less
// than reading and checking a disk cache keyed by a file digest would
// save, and it can never be stale.
type Source struct {
	mode    Mode
	opt     Options
	samples int

	dbs memo.Map[string, *Database]
}

// NewSource builds a source; samples is how many values per column the
// schema text shows (prompt.SchemaSamples).
func NewSource(mode Mode, opt Options, samples int) *Source {
	return &Source{mode: mode, opt: opt.withDefaults(), samples: samples}
}

// Mode is the source's mode.
func (s *Source) Mode() Mode { return s.mode }

// Settings describes the mode and the options that change a linked
// prompt, for a run's manifest and configuration hash: "full", "oracle",
// or "linked" with the options that differ from the defaults.
func (s *Source) Settings() string {
	if s == nil {
		return string(ModeFull)
	}
	if s.mode != ModeLinked {
		return string(s.mode)
	}
	parts := []string{string(ModeLinked)}
	if s.opt.MinTables != DefaultMinTables {
		parts = append(parts, fmt.Sprintf("min_tables=%d", s.opt.MinTables))
	}
	if s.opt.MaxChars > 0 {
		parts = append(parts, fmt.Sprintf("max_chars=%d", s.opt.MaxChars))
	}
	if s.opt.NoValues {
		parts = append(parts, "no_values")
	}
	if s.opt.ValuesPerColumn != DefaultValuesPerColumn {
		parts = append(parts, fmt.Sprintf("values_per_column=%d", s.opt.ValuesPerColumn))
	}
	if s.opt.Keep != DefaultKeep {
		parts = append(parts, fmt.Sprintf("keep=%g", s.opt.Keep))
	}
	return strings.Join(parts, ",")
}

// Database prepares the named database once. A failure of the database
// itself is not kept, so a later call tries again.
func (s *Source) Database(ctx context.Context, name string, eng sqlgym.Engine) (*Database, error) {
	return s.dbs.Do(ctx, name, func() (*Database, error) {
		return Prepare(context.WithoutCancel(ctx), eng, s.samples, s.mode == ModeLinked && !s.opt.NoValues, s.opt.ValuesPerColumn)
	}, func(_ *Database, err error) bool { return !sqlgym.IsInfra(err) })
}

// Select chooses a task's schema under the source's mode.
func (s *Source) Select(db *Database, t *sqlgym.Task) *Selection {
	switch s.mode {
	case ModeLinked:
		return db.Link(t.Question, t.Evidence, s.opt)
	case ModeOracle:
		return db.Oracle(t.SQL)
	}
	sel := &Selection{Mode: ModeFull, TotalTables: len(db.Schema.Tables), Chars: db.FullChars, FullChars: db.FullChars}
	for i, tb := range db.Schema.Tables {
		sel.Tables = append(sel.Tables, Table{Name: tb.Name, Chars: len(db.TableText[i])})
	}
	return sel
}

// Text is a task's schema text under the source's mode, and the
// database's full schema (the agent's tools describe every table).
func (s *Source) Text(ctx context.Context, eng sqlgym.Engine, t *sqlgym.Task) (string, *Database, error) {
	db, err := s.Database(ctx, t.DB, eng)
	if err != nil {
		return "", nil, err
	}
	if s.mode == ModeFull {
		return db.FullText(), db, nil
	}
	return db.Text(s.Select(db, t)), db, nil
}
