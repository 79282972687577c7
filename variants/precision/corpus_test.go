package precision

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/sqlgym/sqlgym/internal/testenv"
)

// corpusDir returns SQLGYM_CORPUS_DIR, or skips: the corpus is other
// people's data, never committed, so no CI machine has it by default.
func corpusDir(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("SQLGYM_CORPUS_DIR")
	if dir == "" {
		t.Skip("corpus test skipped: set SQLGYM_CORPUS_DIR to a folder holding a checkout of each repository of testdata/manifest.json at OWNER/NAME (see docs/authoring.md, \"Precision on real answers\")")
	}
	return dir
}

// TestCorpusBuildsAndEveryJudgmentIsOneOfItsAnswers builds the real corpus
// and checks that every judged flip is an answer of the system it names,
// so the judgments can be audited against the sources.
func TestCorpusBuildsAndEveryJudgmentIsOneOfItsAnswers(t *testing.T) {
	dir := corpusDir(t)
	data := testenv.SharedData(t)
	m, err := LoadManifest("testdata/manifest.json")
	if err != nil {
		t.Fatal(err)
	}
	qs, err := LoadQuestions(filepath.Join(data, "spider_dev", "dev.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	preds, stats, err := Build(dir, m, qs)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range stats {
		// DIN-SQL's files word 22 questions as an older Spider dev did; the
		// one-SQL-a-line files carry no question to compare.
		if s.Kept+s.QuestionDiffers+s.Empty != len(qs) || s.QuestionDiffers > 22 || s.Kept < 950 {
			t.Errorf("%s: %+v of %d questions", s.System, s, len(qs))
		}
	}
	answers := map[[3]string]bool{}
	for _, p := range preds {
		answers[[3]string{p.System, p.TaskID, SQLHash(p.SQL)}] = true
	}
	judg, err := LoadJudgments("testdata/judged_flips.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	for _, j := range judg {
		if !answers[[3]string{j.System, j.TaskID, j.SQLSHA256}] {
			t.Errorf("judgment of %s %s %s is no answer of the corpus", j.System, j.TaskID, j.SQLSHA256[:12])
		}
	}
}
