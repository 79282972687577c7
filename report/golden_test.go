package report

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/failure"
	"github.com/sqlgym/sqlgym/rundir"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden from the current output")

// fixtureRun is a run with every section filled: two databases, two
// complexities, all kinds of outcome, and failures whose SQL and previews
// hold HTML and Markdown that must come out escaped.
func fixtureRun(t *testing.T, name string, shift int) *Run {
	t.Helper()
	root := t.TempDir()
	var tasks []sqlgym.Task
	for i := range 8 {
		tasks = append(tasks, sqlgym.Task{ID: fmt.Sprintf("shop_%03d", i), DB: []string{"shop", "zoo"}[i%2],
			Question: fmt.Sprintf("Question %d <b>bold?</b>", i), SQL: fmt.Sprintf("SELECT name FROM t%d ORDER BY 1", i),
			Complexity: []string{"easy", "hard"}[i/4]})
	}
	tasksPath := filepath.Join(root, "tasks.jsonl")
	writeTasks(t, tasksPath, tasks)
	m := manifest(4)
	m.TasksFile, m.TaskCount, m.Split = tasksPath, 8, "holdout"
	var samples []rundir.Sample
	for i, tk := range tasks {
		c := (i + shift) % 5
		for j := range 4 {
			s := rundir.Sample{TaskID: tk.ID, Sample: j, DB: tk.DB, Verdict: sqlgym.Verdict{SQL: "SELECT name FROM t" + fmt.Sprint(i), Outcome: sqlgym.OutcomeCorrect}}
			if j >= c {
				switch (i + j) % 4 {
				case 0:
					s.Outcome, s.Why, s.Detail = sqlgym.OutcomeWrong, "row_count", "3 rows, gold has 2"
					s.SQL = "SELECT '<script>alert(1)</script>' AS x -- | pipe `tick`"
					s.PredPreview = &sqlgym.Preview{Columns: []string{"x"}, Rows: [][]string{{"<script>alert(1)</script>"}, {"a|b"}}, More: true}
					s.GoldPreview = &sqlgym.Preview{Columns: []string{"name"}, Rows: [][]string{{"<img src=x onerror=alert(2)>"}}}
					s.Failure = &failure.Failure{Class: failure.ExtraRows, Rows: failure.RelSuperset, Detail: "every gold row and more <b>"}
				case 1:
					s.Outcome, s.ErrorKind, s.Detail = sqlgym.OutcomeError, "no_such_column", "no such column: nme"
					s.SQL = "SELECT nme FROM t"
					s.Failure = &failure.Failure{Class: failure.MissingColumn, Detail: "no such column: nme"}
				case 2:
					s.Outcome = sqlgym.OutcomeNoQuery
					s.SQL = ""
					s.Failure = &failure.Failure{Class: failure.NoQuery}
				default:
					s.Outcome = sqlgym.OutcomeInfraError
				}
			}
			samples = append(samples, s)
		}
	}
	return load(t, writeRun(t, filepath.Join(root, name), m, samples))
}

func checkGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./report -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from %s (go test ./report -update rewrites it); got:\n%s", name, path, got)
	}
}

func TestGoldenReport(t *testing.T) {
	r := fixtureRun(t, "golden-run", 0)
	for name, render := range map[string]func(*bytes.Buffer) error{
		"report.txt":  func(b *bytes.Buffer) error { return Text(b, r) },
		"report.md":   func(b *bytes.Buffer) error { return Markdown(b, r) },
		"report.html": func(b *bytes.Buffer) error { return HTML(b, r) },
	} {
		var b bytes.Buffer
		if err := render(&b); err != nil {
			t.Fatal(err)
		}
		checkGolden(t, name, b.Bytes())
	}
}

func TestGoldenCompare(t *testing.T) {
	base := fixtureRun(t, "golden-base", 0)
	treat := fixtureRun(t, "golden-treat", 2)
	c, err := Compare([]*Run{base}, []*Run{treat}, CompareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for name, render := range map[string]func(*bytes.Buffer) error{
		"compare.txt":  func(b *bytes.Buffer) error { return CompareText(b, c) },
		"compare.md":   func(b *bytes.Buffer) error { return CompareMarkdown(b, c) },
		"compare.html": func(b *bytes.Buffer) error { return CompareHTML(b, c) },
	} {
		var b bytes.Buffer
		if err := render(&b); err != nil {
			t.Fatal(err)
		}
		checkGolden(t, name, b.Bytes())
	}
}

func TestHTMLEscapesRunContent(t *testing.T) {
	r := fixtureRun(t, "escape-run", 0)
	var b bytes.Buffer
	if err := HTML(&b, r); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, bad := range []string{"<script", "<img", "<b>bold", "onerror=alert(2)>"} {
		if strings.Contains(page, bad) {
			t.Errorf("page holds unescaped %q", bad)
		}
	}
	for _, want := range []string{"&lt;script&gt;alert(1)&lt;/script&gt;", "&lt;img src=x onerror=alert(2)&gt;", "predicted rows", "gold rows", "SELECT name FROM t", "<svg", "fill=\"" + BarColor + "\""} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	for _, ext := range []string{"src=\"http", "href=\"http", "<link", "<script"} {
		if strings.Contains(page, ext) {
			t.Errorf("page is not self-contained: holds %q", ext)
		}
	}
	// Markdown: raw HTML outside code blocks would be rendered by GitHub;
	// inside a fenced block it is shown as text.
	var md bytes.Buffer
	Markdown(&md, r)
	if prose := outsideFences(md.String()); strings.Contains(prose, "<script") || strings.Contains(prose, "<img") || strings.Contains(prose, "<b>") {
		t.Errorf("markdown passes raw HTML through outside code blocks:\n%s", prose)
	}
	if !strings.Contains(md.String(), "&lt;img src=x onerror=alert(2)&gt;") || !strings.Contains(md.String(), "a\\|b") {
		t.Errorf("markdown preview cells not escaped:\n%s", md.String())
	}
}

func TestFenceOutlastsBackticks(t *testing.T) {
	f := fence("sql", "SELECT '```' AS x")
	if !strings.HasPrefix(f, "````sql\n") || !strings.HasSuffix(f, "\n````\n") {
		t.Fatalf("fence %q", f)
	}
}

// outsideFences drops fenced code blocks (``` and longer) from Markdown.
func outsideFences(md string) string {
	var out []string
	fence := ""
	for _, line := range strings.Split(md, "\n") {
		trimmed := strings.TrimLeft(line, "`")
		ticks := len(line) - len(trimmed)
		switch {
		case fence == "" && ticks >= 3:
			fence = line[:ticks]
		case fence != "" && line == fence:
			fence = ""
		case fence == "":
			out = append(out, line)
		}
	}
	return strings.Join(out, "\n")
}
