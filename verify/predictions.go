package verify

import (
	"encoding/json"
	"fmt"
	"io"
	"os"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/internal/jsonl"
)

// Prediction is one line of a predictions file.
type Prediction struct {
	TaskID       string  `json:"task_id"`
	Sample       *int    `json:"sample,omitempty"`
	SQL          *string `json:"sql,omitempty"`
	Completion   *string `json:"completion,omitempty"`
	FinishReason string  `json:"finish_reason,omitempty"`
}

// ReadPredictions reads a JSONL predictions file into answers, in file
// order. A missing sample number is the prediction's position among its
// task's predictions. Errors name the file and line.
func ReadPredictions(path string) ([]Answer, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, sqlgym.Userf(`give --predictions a JSONL file of {"task_id", "sql" | "completion"} lines`, "open predictions: %w", err)
	}
	defer f.Close()
	return DecodePredictions(f, path)
}

// DecodePredictions is ReadPredictions from a reader.
func DecodePredictions(r io.Reader, name string) ([]Answer, error) {
	var out []Answer
	next := map[string]int{}
	_, err := jsonl.Scan(r, name, jsonl.Strict, func(_ int, b []byte) error {
		var p Prediction
		if err := json.Unmarshal(b, &p); err != nil {
			return fmt.Errorf("not a JSON prediction: %w", err)
		}
		if p.TaskID == "" {
			return fmt.Errorf("missing \"task_id\"")
		}
		if p.SQL == nil && p.Completion == nil {
			return fmt.Errorf("give \"sql\" or \"completion\"")
		}
		a := Answer{TaskID: p.TaskID, FinishReason: p.FinishReason}
		if p.SQL != nil {
			a.SQL = *p.SQL
		} else {
			a.Completion = *p.Completion
		}
		if p.Sample != nil {
			a.Sample = *p.Sample
		} else {
			a.Sample = next[p.TaskID]
		}
		next[p.TaskID] = a.Sample + 1
		out = append(out, a)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}
