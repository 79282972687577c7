package author

import (
	"context"
	"errors"
	"fmt"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/author/goldfilter"
	"github.com/sqlgym/sqlgym/constraints"
	"github.com/sqlgym/sqlgym/schema"
)

// Opener opens a new engine on one database: each call must give an
// engine with connections of its own.
type Opener func(ctx context.Context) (sqlgym.Engine, error)

// Setup is what a synth run needs: the schema, the teacher built on one
// engine and the filter on two more.
type Setup struct {
	Schema  *sqlgym.Schema
	Teacher *Synth
	Filter  *goldfilter.Filter
	// Constraints are the database's declared and implied keys; the
	// synth teacher reads the implied ones as declared, so that it joins
	// through implied foreign keys and never sums or ranks a key.
	Constraints *constraints.Set
	// Warning, when set, says why the tasks may be poor: the database
	// neither declares nor implies a key.
	Warning string
	engines []sqlgym.Engine
}

// PrepareSynth opens three engines with open (one to profile the data,
// two for the filter's two runs), loads the schema and builds the synth
// teacher.
func PrepareSynth(ctx context.Context, open Opener, lex *Lexicon, minRows, maxRows int) (*Setup, error) {
	s := &Setup{}
	for range 3 {
		e, err := open(ctx)
		if err != nil {
			s.Close()
			return nil, err
		}
		s.engines = append(s.engines, e)
	}
	var err error
	if s.Schema, err = schema.Load(ctx, s.engines[0], 0); err != nil {
		s.Close()
		return nil, err
	}
	if s.Constraints, err = constraints.Infer(ctx, s.engines[0], s.Schema, constraints.Options{}); err != nil {
		s.Close()
		return nil, fmt.Errorf("synth: %w", err)
	}
	if len(s.Constraints.Keys) == 0 && len(s.Constraints.ForeignKeys) == 0 {
		s.Warning = "the database declares no key and its data implies none: the synth teacher cannot tell keys from " +
			"measures or join tables; declare the primary and foreign keys (or name key columns id, *_id) for better tasks"
	}
	if s.Teacher, err = NewSynthKeys(ctx, s.engines[0], s.Schema, s.Constraints, lex); err != nil {
		s.Close()
		return nil, fmt.Errorf("synth: %w", err)
	}
	s.Filter = &goldfilter.Filter{A: s.engines[1], B: s.engines[2], MinRows: minRows, MaxRows: maxRows}
	return s, nil
}

// Close closes the engines.
func (s *Setup) Close() error {
	var errs []error
	for _, e := range s.engines {
		errs = append(errs, e.Close())
	}
	s.engines = nil
	return errors.Join(errs...)
}
