package author

import (
	"context"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/engine/sqlite"
	"github.com/sqlgym/sqlgym/shopdb"
)

// shopFile creates a fresh shop SQLite file in a temporary folder.
func shopFile(t testing.TB) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "shop.sqlite")
	if err := sqlite.Create(context.Background(), path, shopdb.Statements()); err != nil {
		t.Fatal(err)
	}
	return path
}

func opener(path string) Opener {
	return func(context.Context) (sqlgym.Engine, error) { return sqlite.Open(path, sqlite.Options{}) }
}

func prepare(t testing.TB, path string, lex *Lexicon) *Setup {
	t.Helper()
	s, err := PrepareSynth(context.Background(), opener(path), lex, 1, 50)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// collect runs cfg and returns the tasks it emitted.
func collect(t testing.TB, ctx context.Context, cfg Config) ([]sqlgym.Task, Counts, error) {
	t.Helper()
	var out []sqlgym.Task
	emit := cfg.Emit
	cfg.Emit = func(tk sqlgym.Task) error {
		out = append(out, tk)
		if emit != nil {
			return emit(tk)
		}
		return nil
	}
	cnt, err := Run(ctx, cfg)
	return out, cnt, err
}

// listTeacher proposes a fixed list of candidates once, then nothing.
type listTeacher struct {
	cands []Candidate
	done  bool
}

func (l *listTeacher) Propose(_ context.Context, _ *sqlgym.Schema, n int, _ *rand.Rand) ([]Candidate, error) {
	if l.done {
		return nil, nil
	}
	l.done = true
	return l.cands, nil
}
