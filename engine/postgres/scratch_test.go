package postgres

import (
	"context"
	"testing"
	"time"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/engine/enginetest"
)

func TestScratch(t *testing.T) {
	s := newSandbox(t, enginetest.Fixture())
	eng := s.open(t, Options{})
	for i := 0; i < 3; i++ {
		st := time.Now()
		s.digest(t)
		t.Logf("digest %v", time.Since(st))
	}
	for _, q := range []string{`SELECT repeat('x', 1000000000)`, `SELECT repeat('x', 10000000) FROM generate_series(1, 100)`, `SELECT 1`} {
		for _, b := range []time.Duration{300 * time.Millisecond, 2 * time.Second} {
			st := time.Now()
			_, err := eng.Query(context.Background(), q, sqlgym.Limits{Timeout: b})
			t.Logf("%s budget %v: %v in %v", q, b, err, time.Since(st))
		}
	}
}
