package author

import (
	"context"
	"errors"
	"fmt"

	"github.com/sqlgym/sqlgym"
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
	Filter  *Filter
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
	if s.Teacher, err = NewSynth(ctx, s.engines[0], s.Schema, lex); err != nil {
		s.Close()
		return nil, fmt.Errorf("synth: %w", err)
	}
	s.Filter = &Filter{A: s.engines[1], B: s.engines[2], MinRows: minRows, MaxRows: maxRows}
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
