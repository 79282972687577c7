package sqlgym

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"

	"github.com/sqlgym/sqlgym/internal/jsonl"
)

// Task is a question with its gold SQL on one database. Fields the task
// file carries that sqlgym does not know are kept in Extra and written back
// unchanged, so a task file survives a round trip through any command.
type Task struct {
	ID       string `json:"id"`
	DB       string `json:"db"`
	Question string `json:"question"`
	SQL      string `json:"sql"`
	Evidence string `json:"evidence,omitempty"`
	Split    string `json:"split,omitempty"`

	// Alternatives are other golds that count as correct (defog, Spider 2.0).
	Alternatives []string `json:"alternatives,omitempty"`
	// DBVariants lists database references on which a test-suite comparison
	// must also match (Spider's test-suite databases).
	DBVariants []string `json:"db_variants,omitempty"`
	// ConditionCols and IgnoreOrder are Spider 2.0's evaluation settings.
	ConditionCols []int  `json:"condition_cols,omitempty"`
	IgnoreOrder   *bool  `json:"ignore_order,omitempty"`
	Difficulty    string `json:"difficulty,omitempty"`
	Complexity    string `json:"complexity,omitempty"`
	Source        string `json:"source,omitempty"`

	// GoldByDialect holds the gold for the engines that need another text
	// than SQL, by dialect ("postgres": "..."): SQL is the gold on every
	// engine it does not list. The built-in shop tasks are written for
	// SQLite and carry the PostgreSQL and DuckDB texts here. GoldFor picks.
	GoldByDialect map[Dialect]string `json:"gold_sql_by_dialect,omitempty"`

	Extra map[string]json.RawMessage `json:"-"`
}

// Splits a task can be in.
const (
	SplitTrain   = "train"
	SplitHoldout = "holdout"
)

var knownTaskFields = map[string]bool{
	"id": true, "db": true, "question": true, "sql": true, "evidence": true, "split": true,
	"alternatives": true, "db_variants": true, "condition_cols": true, "ignore_order": true,
	"difficulty": true, "complexity": true, "source": true, "gold_sql_by_dialect": true,
}

// UnmarshalJSON reads the known fields and keeps the rest in Extra.
func (t *Task) UnmarshalJSON(b []byte) error {
	type plain Task
	var p plain
	if err := json.Unmarshal(b, &p); err != nil {
		return err
	}
	var all map[string]json.RawMessage
	if err := json.Unmarshal(b, &all); err != nil {
		return err
	}
	for k := range all {
		if knownTaskFields[k] {
			delete(all, k)
		}
	}
	if len(all) == 0 {
		all = nil
	}
	*t = Task(p)
	t.Extra = all
	return nil
}

// MarshalJSON writes the known fields, then Extra in key order.
func (t Task) MarshalJSON() ([]byte, error) {
	type plain Task
	b, err := json.Marshal(plain(t))
	if err != nil || len(t.Extra) == 0 {
		return b, err
	}
	keys := make([]string, 0, len(t.Extra))
	for k := range t.Extra {
		if !knownTaskFields[k] {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	var buf bytes.Buffer
	buf.Write(b[:len(b)-1])
	for _, k := range keys {
		kb, _ := json.Marshal(k)
		buf.WriteByte(',')
		buf.Write(kb)
		buf.WriteByte(':')
		buf.Write(t.Extra[k])
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
}

// Golds is the task's gold SQL followed by its alternatives.
func (t *Task) Golds() []string {
	return append([]string{t.SQL}, t.Alternatives...)
}

// GoldFor is the task's gold on an engine of dialect d: its
// GoldByDialect entry, or SQL.
func (t *Task) GoldFor(d Dialect) string {
	if g, ok := t.GoldByDialect[d]; ok && g != "" {
		return g
	}
	return t.SQL
}

// GoldsFor is GoldFor(d) followed by the alternatives.
func (t *Task) GoldsFor(d Dialect) []string {
	return append([]string{t.GoldFor(d)}, t.Alternatives...)
}

// taskFileHint is the hint of a task file that cannot be read.
const taskFileHint = "give --tasks a JSONL task file (sqlgym import and sqlgym author write one), or shop for the built-in task set"

// ReadTasks reads a JSONL task file. Errors name the file and line:
// "tasks.jsonl:12: missing \"sql\"". Blank lines are skipped; duplicate ids
// are an error. Relative file paths in db_variants are read relative to
// the file's folder (AnchorVariants).
func ReadTasks(path string) ([]Task, error) {
	b, err := ReadTaskBytes(path)
	if err != nil {
		return nil, err
	}
	tasks, err := DecodeTasks(bytes.NewReader(b), path)
	if err != nil {
		return nil, err
	}
	AnchorVariants(tasks, filepath.Dir(path))
	return tasks, nil
}

// ReadTaskBytes reads a task file whole, with the hint every command
// gives for a file that is missing or a folder.
func ReadTaskBytes(path string) ([]byte, error) {
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return nil, Userf(taskFileHint, "task file %s is a folder", path)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, Userf(taskFileHint, "open task file: %w", err)
	}
	return b, nil
}

// DecodeTasks reads JSONL tasks from r; name is used in error messages.
func DecodeTasks(r io.Reader, name string) ([]Task, error) {
	var d TaskDecoder
	if _, err := jsonl.Scan(r, name, jsonl.Strict, d.Line); err != nil {
		return nil, err
	}
	return d.Tasks, nil
}

// TaskDecoder checks and collects tasks one JSONL line at a time, for a
// jsonl scan: DecodeTasks reads a task file with it, and author --resume
// the file it appends to.
type TaskDecoder struct {
	Tasks []Task
	seen  map[string]int
}

// Line decodes and checks the task on line number line.
func (d *TaskDecoder) Line(line int, b []byte) error {
	if d.seen == nil {
		d.seen = map[string]int{}
	}
	if line == 1 {
		// Editors on Windows start UTF-8 files with a byte-order mark,
		// which JSON does not allow: it read as "invalid character 'ï'".
		b = bytes.TrimPrefix(b, []byte("\xef\xbb\xbf"))
	}
	var t Task
	if err := json.Unmarshal(b, &t); err != nil {
		return Userf(`write one task per line as an object: {"id": "...", "db": "...", "question": "...", "sql": "..."}`,
			"not a JSON task object: %w", PlainJSONError(err))
	}
	switch {
	case t.ID == "":
		return fmt.Errorf("missing \"id\"")
	case t.DB == "":
		return fmt.Errorf("task %q: missing \"db\"", t.ID)
	case t.SQL == "":
		return fmt.Errorf("task %q: missing \"sql\"", t.ID)
	case t.Split != "" && t.Split != SplitTrain && t.Split != SplitHoldout:
		return fmt.Errorf("task %q: split %q is not \"train\" or \"holdout\"", t.ID, t.Split)
	}
	if prev, dup := d.seen[t.ID]; dup {
		return fmt.Errorf("duplicate task id %q (first on line %d)", t.ID, prev)
	}
	d.seen[t.ID] = line
	d.Tasks = append(d.Tasks, t)
	return nil
}

// WriteTasks writes tasks as JSONL to w.
func WriteTasks(w io.Writer, tasks []Task) error {
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	for i := range tasks {
		if err := enc.Encode(&tasks[i]); err != nil {
			return fmt.Errorf("write task %q: %w", tasks[i].ID, err)
		}
	}
	return bw.Flush()
}
