package precision

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fixtureCorpus writes a lines source and a DIN-SQL CSV source of
// DevSize answers each under dir, the answer at position i being
// "SELECT i FROM t"; edit changes lines before they are written.
func fixtureCorpus(t *testing.T, dir string, edit func(lines []string, csvRows [][4]string)) Manifest {
	t.Helper()
	lines := make([]string, DevSize)
	rows := make([][4]string, DevSize)
	for i := range DevSize {
		lines[i] = fmt.Sprintf("SELECT %d FROM t", i)
		rows[i] = [4]string{fmt.Sprintf("Question %d?", i), fmt.Sprintf("SELECT %d FROM t", i), "gold", "db_" + fmt.Sprint(i%3)}
	}
	if edit != nil {
		edit(lines, rows)
	}
	m := Manifest{Dataset: "spider_dev", Sources: []Source{
		{System: "liner", Repo: "a/lines", Commit: strings.Repeat("a", 40), Path: "out/pred.txt", Format: FormatLines},
		{System: "csver", Repo: "b/csv", Commit: strings.Repeat("b", 40), Path: "res/x.csv", Format: FormatDINCSV},
	}}
	write := func(p, s string) {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(m.Sources[0].LocalPath(dir), strings.Join(lines, "\n")+"\n")
	var b strings.Builder
	b.WriteString("NLQ,PREDICTED SQL,GOLD SQL,DATABASE\n")
	for _, r := range rows {
		fmt.Fprintf(&b, "%q,%q,%q,%q\n", r[0], r[1], r[2], r[3])
	}
	write(m.Sources[1].LocalPath(dir), b.String())
	return m
}

// fixtureQuestions are three questions of the dev set, at positions 0, 4
// and 1033 (the last), as the shared dev.jsonl spells them.
func fixtureQuestions() []Question {
	return []Question{
		{ID: "spider_dev_0000", DB: "db_0", Question: "Question 0?"},
		{ID: "spider_dev_0004", DB: "db_1", Question: "question  4 ?"},
		{ID: "spider_dev_1033", DB: "db_1", Question: "Question 1033?"},
	}
}

func TestBuildMapsAnswersByDevPosition(t *testing.T) {
	dir := t.TempDir()
	m := fixtureCorpus(t, dir, func(lines []string, rows [][4]string) {
		lines[1033] = "  SELECT last FROM t  " // spaces around are not the answer
		rows[0][0] = "Question 0, asked otherwise?"
		rows[1033][1] = ""
	})
	preds, stats, err := Build(dir, m, fixtureQuestions())
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, p := range preds {
		got[fmt.Sprintf("%s/%s/%d", p.System, p.TaskID, p.Sample)] = p.SQL
	}
	want := map[string]string{
		"liner/spider_dev_0000/1": "SELECT 0 FROM t",
		"liner/spider_dev_0004/1": "SELECT 4 FROM t",
		"liner/spider_dev_1033/1": "SELECT last FROM t",
		// csver's question 0 is worded otherwise and its 1033 is empty:
		// only its answer 4 is kept ("question  4 ?" matches as words).
		"csver/spider_dev_0004/2": "SELECT 4 FROM t",
	}
	if len(got) != len(want) {
		t.Fatalf("got %d predictions %v, want %v", len(got), got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %q, want %q", k, got[k], v)
		}
	}
	if s := stats[1]; s.Kept != 1 || s.QuestionDiffers != 1 || s.Empty != 1 {
		t.Errorf("csver stats = %+v, want kept 1, question differs 1, empty 1", s)
	}
}

func TestBuildRefusesAFileOutOfDevOrder(t *testing.T) {
	dir := t.TempDir()
	m := fixtureCorpus(t, dir, func(_ []string, rows [][4]string) { rows[4][3] = "db_2" })
	_, _, err := Build(dir, m, fixtureQuestions())
	if err == nil || !strings.Contains(err.Error(), `position 4 answers database "db_2"`) {
		t.Fatalf("err = %v, want the misaligned position named", err)
	}
}

func TestBuildRefusesAFileOfTheWrongLength(t *testing.T) {
	dir := t.TempDir()
	m := fixtureCorpus(t, dir, nil)
	p := m.Sources[0].LocalPath(dir)
	b, _ := os.ReadFile(p)
	// A multi-line answer shifts everything after it: one line too many.
	if err := os.WriteFile(p, append(b, []byte("WHERE x = 1\n")...), 0o644); err != nil {
		t.Fatal(err)
	}
	_, _, err := Build(dir, m, fixtureQuestions())
	if err == nil || !strings.Contains(err.Error(), "holds 1035 answers") {
		t.Fatalf("err = %v, want the length refused", err)
	}
}

func TestBuildNamesAMissingSourceAndHowToGetIt(t *testing.T) {
	m := fixtureCorpus(t, t.TempDir(), nil)
	_, _, err := Build(t.TempDir(), m, fixtureQuestions())
	if err == nil || !strings.Contains(err.Error(), "clone https://github.com/a/lines") {
		t.Fatalf("err = %v, want a hint naming the repository", err)
	}
}

func TestManifestCheck(t *testing.T) {
	ok := Source{System: "s", Repo: "o/n", Commit: strings.Repeat("c", 40), Path: "p", Format: FormatLines}
	bad := map[string]func(s *Source){
		"commit":  func(s *Source) { s.Commit = "main" },
		"format":  func(s *Source) { s.Format = "json" },
		"repo":    func(s *Source) { s.Repo = "n" },
		"missing": func(s *Source) { s.System = "" },
	}
	for name, edit := range bad {
		s := ok
		edit(&s)
		if err := (Manifest{Sources: []Source{s}}).check("m.json"); err == nil {
			t.Errorf("%s: a bad source was accepted", name)
		}
	}
	if err := (Manifest{Sources: []Source{ok, ok}}).check("m.json"); err == nil {
		t.Error("a system named twice was accepted")
	}
	if err := (Manifest{Sources: []Source{ok}}).check("m.json"); err != nil {
		t.Errorf("a good source was refused: %v", err)
	}
}

func TestShippedManifestIsValid(t *testing.T) {
	m, err := LoadManifest("testdata/manifest.json")
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Sources) < 8 || m.Sample("din-sql-gpt4") != 1 {
		t.Fatalf("manifest has %d sources, din-sql-gpt4 at %d", len(m.Sources), m.Sample("din-sql-gpt4"))
	}
}
