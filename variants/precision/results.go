package precision

import (
	"encoding/json"
	"fmt"

	"github.com/sqlgym/sqlgym/internal/jsonl"
)

// Result is the part of a `sqlgym verify --out` line this package reads.
type Result struct {
	TaskID  string `json:"task_id"`
	Sample  int    `json:"sample"`
	SQL     string `json:"sql"`
	Outcome string `json:"outcome"`
	Detail  string `json:"detail"`
}

type answerKey struct {
	task   string
	sample int
}

// Results are a verify results file's lines, keyed by task and sample.
type Results = map[answerKey]Result

// LoadResults reads a verify results file, keyed by task and sample.
func LoadResults(path string) (Results, error) {
	out := map[answerKey]Result{}
	_, err := jsonl.ScanFile(path, jsonl.Strict, func(_ int, b []byte) error {
		var r Result
		if err := json.Unmarshal(b, &r); err != nil {
			return err
		}
		k := answerKey{r.TaskID, r.Sample}
		if _, dup := out[k]; dup {
			return fmt.Errorf("task %s sample %d appears twice", r.TaskID, r.Sample)
		}
		out[k] = r
		return nil
	})
	return out, err
}

// LoadPredictions reads predictions JSONL as Build writes them.
func LoadPredictions(path string) ([]Prediction, error) {
	var out []Prediction
	_, err := jsonl.ScanFile(path, jsonl.Strict, func(_ int, b []byte) error {
		var p Prediction
		if err := json.Unmarshal(b, &p); err != nil {
			return err
		}
		out = append(out, p)
		return nil
	})
	return out, err
}

// LoadFlips reads flips as report --unjudged writes them.
func LoadFlips(path string) ([]Flip, error) {
	var out []Flip
	_, err := jsonl.ScanFile(path, jsonl.Strict, func(_ int, b []byte) error {
		var f Flip
		if err := json.Unmarshal(b, &f); err != nil {
			return err
		}
		if f.TaskID == "" || f.SQLSHA256 != SQLHash(f.SQL) {
			return fmt.Errorf("not a flip: it needs task_id, sql and that SQL's sql_sha256")
		}
		out = append(out, f)
		return nil
	})
	return out, err
}
