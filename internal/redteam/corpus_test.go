package redteam

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/internal/testenv"
)

// The shared corpus loads whole, and every file in it is one the README
// describes (a new reproduction needs its home engine and outcome here).
func TestLoadTheSharedCorpus(t *testing.T) {
	dir := filepath.Join(filepath.Dir(testenv.SharedData(t)), "redteam")
	c, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Tasks) != 2 || len(c.Reproductions) != len(known) {
		t.Fatalf("%d tasks, %d reproductions; want 2 and %d", len(c.Tasks), len(c.Reproductions), len(known))
	}
	for _, r := range c.Reproductions {
		if _, ok := known[r.File]; !ok {
			t.Errorf("%s: not described here (home engine, expected outcome)", r.File)
		}
		if n := len(r.Answers); n == 0 || (strings.HasPrefix(r.File, "r6_") && n != 512) {
			t.Errorf("%s: %d answers", r.File, n)
		}
	}
}

func TestExpectedAndSample(t *testing.T) {
	r := Reproduction{File: "r2_sqlite_safetynet.jsonl", Home: sqlgym.DialectSQLite, Expect: []sqlgym.Outcome{sqlgym.OutcomeTimeout}}
	if !r.Expected(sqlgym.DialectSQLite, sqlgym.OutcomeTimeout) || r.Expected(sqlgym.DialectSQLite, sqlgym.OutcomeInfraError) {
		t.Error("on its home engine only the README's outcome is expected")
	}
	if !r.Expected(sqlgym.DialectDuckDB, sqlgym.OutcomeError) {
		t.Error("elsewhere any outcome is")
	}
	as := make([]Answer, 512)
	for i := range as {
		as[i].SQL = string(rune('a' + i%26))
	}
	s := Sample(as, 4)
	if len(s) != 4 || s[0] != as[0] || s[1] != as[128] || s[3] != as[384] {
		t.Errorf("Sample(512, 4) = %v, want answers 0, 128, 256, 384", s)
	}
	if len(Sample(as, 0)) != 512 {
		t.Error("Sample(…, 0) is all")
	}
}

func TestReadFileRefusesAnAnswerWithoutSQL(t *testing.T) {
	p := filepath.Join(t.TempDir(), "r.jsonl")
	if err := os.WriteFile(p, []byte(`{"task_id": "t"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadFile(p); err == nil {
		t.Error("an answer with neither sql nor completion was read")
	}
}
