package importer

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/sqlgym/sqlgym"
)

// Report says what an import read and what it skipped, and why.
type Report struct {
	Format   string         `json:"format"`
	Source   string         `json:"source"`
	Tasks    int            `json:"tasks"`
	Skipped  map[string]int `json:"skipped,omitempty"`
	DBDir    string         `json:"db_dir,omitempty"`
	Database []string       `json:"databases"`
	// Dialect is the golds' dialect when it is not SQLite's: mysql for
	// BIRD mini-dev's MySQL edition, whose tables all live in one MySQL
	// database.
	Dialect sqlgym.Dialect `json:"dialect,omitempty"`
	// MySQLGolds counts the tasks given a MySQL gold beside their SQLite
	// one (BIRD mini-dev with its MySQL file beside the SQLite one).
	MySQLGolds int `json:"mysql_golds,omitempty"`
}

func (r *Report) skip(why string) {
	if r.Skipped == nil {
		r.Skipped = map[string]int{}
	}
	r.Skipped[why]++
}

func (r *Report) finish(tasks []sqlgym.Task) {
	r.Tasks = len(tasks)
	seen := map[string]bool{}
	for _, t := range tasks {
		if !seen[t.DB] {
			seen[t.DB] = true
			r.Database = append(r.Database, t.DB)
		}
	}
	sort.Strings(r.Database)
}

// Formats lists the benchmark layouts Import reads.
var Formats = []string{"bird", "spider", "spider2-lite", "defog"}

// Import reads a benchmark in the named layout from src (a folder or a
// file) and returns its tasks.
func Import(format, src string) ([]sqlgym.Task, *Report, error) {
	if _, err := os.Stat(src); err != nil {
		return nil, nil, sqlgym.Userf("give the benchmark's folder or question file", "import %s: %w", format, err)
	}
	var (
		tasks []sqlgym.Task
		rep   = &Report{Format: format, Source: src}
		err   error
	)
	switch format {
	case "bird":
		tasks, err = importBird(src, rep)
	case "spider":
		tasks, err = importSpider(src, rep)
	case "spider2-lite":
		tasks, err = importSpider2Lite(src, rep)
	case "defog":
		tasks, err = importDefog(src, rep)
	default:
		return nil, nil, sqlgym.Userf("formats: "+strings.Join(Formats, ", "), "unknown benchmark format %q", format)
	}
	if err != nil {
		return nil, nil, err
	}
	if err := checkUnique(tasks); err != nil {
		return nil, nil, err
	}
	rep.finish(tasks)
	return tasks, rep, nil
}

func checkUnique(tasks []sqlgym.Task) error {
	seen := map[string]bool{}
	for _, t := range tasks {
		if seen[t.ID] {
			return fmt.Errorf("two questions get the id %q", t.ID)
		}
		seen[t.ID] = true
	}
	return nil
}

// firstExisting returns the first of the paths that exists.
func firstExisting(paths ...string) string {
	for _, p := range paths {
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	return ""
}

// questionFile finds the question file: src itself when it is a file, else
// the first of names inside the folder src.
func questionFile(src string, names ...string) (string, error) {
	if st, err := os.Stat(src); err == nil && !st.IsDir() {
		return src, nil
	}
	var cands []string
	for _, n := range names {
		cands = append(cands, filepath.Join(src, n))
	}
	if p := firstExisting(cands...); p != "" {
		return p, nil
	}
	return "", sqlgym.Userf("point at the benchmark's folder or its question file", "no question file in %s (looked for %s)", src, strings.Join(names, ", "))
}

func stem(path string) string {
	b := filepath.Base(path)
	for _, ext := range []string{".jsonl", ".json", ".csv"} {
		b = strings.TrimSuffix(b, ext)
	}
	return b
}
