package postgres

import (
	"testing"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/engine/enginetest"
)

// harness builds each suite database as its own schema read by its own
// reader role; opened records the sandboxes so tests can inspect the
// server afterwards.
func harness(dir string, extra []string, opened *[]*sandbox) enginetest.Harness {
	return enginetest.Harness{
		Dialect: sqlgym.DialectPostgres,
		Dir:     dir,
		Open: func(t *testing.T, stmts []string) (sqlgym.Engine, func() string) {
			s := newSandbox(t, append(append([]string(nil), stmts...), extra...))
			if opened != nil {
				*opened = append(*opened, s)
			}
			// The suites check how fast runaways are stopped (twice their
			// budget); the retry under load stretches that by design, and
			// TestLoadRetry checks its own bound.
			eng := s.open(t, Options{NoLoadRetry: true})
			return eng, func() string { return s.digest(t) }
		},
	}
}

func TestConformance(t *testing.T) {
	enginetest.Run(t, harness("", nil, nil))
}

func TestRobustness(t *testing.T) {
	enginetest.RunRobustness(t, harness("", nil, nil))
}
