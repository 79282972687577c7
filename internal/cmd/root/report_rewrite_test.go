package root

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym/internal/cmd/cmdkit"
)

// report --html rewrites a page it wrote itself without --replace (running
// report again after more samples is the point), and still refuses any
// other existing file.
func TestReportHTMLRewritesItsOwnPage(t *testing.T) {
	dir := rptWrite(t, t.TempDir(), "base", rptRun{k: 2, right: []int{2, 0}})
	page := filepath.Join(dir, "report.html")
	for i := 0; i < 2; i++ {
		if code, _, errOut := run(t, "report", dir, "--html", page); code != cmdkit.ExitOK {
			t.Fatalf("report --html, time %d: exit %d\n%s", i+1, code, errOut)
		}
	}

	notes := filepath.Join(dir, "notes.html")
	mine := "<!DOCTYPE html>\n<html><head><title>my notes</title></head><body>keep me</body></html>\n"
	if err := os.WriteFile(notes, []byte(mine), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errOut := run(t, "report", dir, "--html", notes)
	if code == cmdkit.ExitOK || !strings.Contains(errOut, "already exists") || !strings.Contains(errOut, "--replace") {
		t.Fatalf("another HTML file: exit %d\n%s", code, errOut)
	}
	if b, _ := os.ReadFile(notes); string(b) != mine {
		t.Fatalf("the user's file was changed:\n%s", b)
	}
}
