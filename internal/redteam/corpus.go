package redteam

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"sort"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/internal/jsonl"
	"github.com/sqlgym/sqlgym/shopdb"
)

// Answer is one line of a reproduction: a prediction, its SQL or the
// whole reply the SQL is extracted from.
type Answer struct {
	TaskID     string `json:"task_id"`
	SQL        string `json:"sql,omitempty"`
	Completion string `json:"completion,omitempty"`
}

// Reproduction is one file of the corpus.
type Reproduction struct {
	File string
	// Home is the engine the file was written against ("" for any: the
	// replies, whose cost is extraction's). Elsewhere its statements are
	// still hostile input, with no expected outcome.
	Home sqlgym.Dialect
	// Expect is the outcomes the README expects on Home (any of them);
	// empty when it expects only a scored verdict within the bound.
	Expect  []sqlgym.Outcome
	Answers []Answer
}

// Expected reports whether o is what the README expects of r on d.
func (r Reproduction) Expected(d sqlgym.Dialect, o sqlgym.Outcome) bool {
	if len(r.Expect) == 0 || (r.Home != "" && r.Home != d) {
		return true
	}
	return slices.Contains(r.Expect, o)
}

// Corpus is the reproductions and the tasks they answer (`t`, the count
// of orders, and `one`, SELECT 1, both on the built-in shop).
type Corpus struct {
	Dir           string
	Tasks         []sqlgym.Task
	Reproductions []Reproduction
}

// known is what the README says of each file; a file not listed is
// replayed everywhere with no expectation.
var known = map[string]struct {
	home   sqlgym.Dialect
	expect []sqlgym.Outcome
}{
	"r1_tag_5000.jsonl":         {"", []sqlgym.Outcome{sqlgym.OutcomeNoQuery}},
	"r1_tag_10000.jsonl":        {"", []sqlgym.Outcome{sqlgym.OutcomeNoQuery}},
	"r1_tag_control.jsonl":      {"", []sqlgym.Outcome{sqlgym.OutcomeCorrect}},
	"r2_sqlite_safetynet.jsonl": {sqlgym.DialectSQLite, []sqlgym.Outcome{sqlgym.OutcomeTimeout}},
	"r3_pg_jit_1000.jsonl":      {sqlgym.DialectPostgres, []sqlgym.Outcome{sqlgym.OutcomeTimeout}},
	"r3_pg_jit_1600.jsonl":      {sqlgym.DialectPostgres, []sqlgym.Outcome{sqlgym.OutcomeTimeout}},
	"r3_pg_jit_sqlsmith.jsonl":  {sqlgym.DialectPostgres, nil},
	"r4_sqlite_oom_rerun.jsonl": {sqlgym.DialectSQLite, []sqlgym.Outcome{sqlgym.OutcomeTimeout, sqlgym.OutcomeError}},
	"r6_sqlite_512.jsonl":       {sqlgym.DialectSQLite, []sqlgym.Outcome{sqlgym.OutcomeTimeout, sqlgym.OutcomeError}},
	"r6_duckdb_512.jsonl":       {sqlgym.DialectDuckDB, []sqlgym.Outcome{sqlgym.OutcomeTimeout}},
	"r6_postgres_512.jsonl":     {sqlgym.DialectPostgres, []sqlgym.Outcome{sqlgym.OutcomeTimeout}},
}

// Load reads every r*.jsonl of dir and its two task files.
func Load(dir string) (*Corpus, error) {
	c := &Corpus{Dir: dir}
	for _, name := range []string{"tasks.jsonl", "tasks_one.jsonl"} {
		ts, err := shopdb.LoadTasks(filepath.Join(dir, name))
		if err != nil {
			return nil, fmt.Errorf("red-team tasks: %w", err)
		}
		c.Tasks = append(c.Tasks, ts...)
	}
	files, err := filepath.Glob(filepath.Join(dir, "r*.jsonl"))
	if err != nil {
		return nil, fmt.Errorf("red-team corpus %s: %w", dir, err)
	}
	if len(files) == 0 {
		return nil, sqlgym.Userf("give the folder holding the red team's r*.jsonl files and its README (../shared/redteam)", "no reproductions in %s", dir)
	}
	sort.Strings(files)
	for _, f := range files {
		as, err := ReadFile(f)
		if err != nil {
			return nil, err
		}
		k := known[filepath.Base(f)]
		c.Reproductions = append(c.Reproductions, Reproduction{File: filepath.Base(f), Home: k.home, Expect: k.expect, Answers: as})
	}
	return c, nil
}

// ReadFile reads one reproduction's answers.
func ReadFile(path string) ([]Answer, error) {
	var as []Answer
	_, err := jsonl.ScanFile(path, jsonl.Strict, func(_ int, b []byte) error {
		var a Answer
		if err := json.Unmarshal(b, &a); err != nil {
			return err
		}
		if a.TaskID == "" || (a.SQL == "") == (a.Completion == "") {
			return fmt.Errorf("want a task_id and one of sql, completion")
		}
		as = append(as, a)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("red-team reproduction: %w", err)
	}
	if len(as) == 0 {
		return nil, fmt.Errorf("red-team reproduction %s: no answers", path)
	}
	return as, nil
}

// Sample is n of as, evenly spaced (the first, and so on), or all of them
// when n <= 0 or n >= len(as).
func Sample(as []Answer, n int) []Answer {
	if n <= 0 || n >= len(as) {
		return as
	}
	out := make([]Answer, 0, n)
	for i := 0; i < n; i++ {
		out = append(out, as[i*len(as)/n])
	}
	return out
}
