package verify

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
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
		return nil, fmt.Errorf("open predictions: %w", err)
	}
	defer f.Close()
	return DecodePredictions(f, path)
}

// DecodePredictions is ReadPredictions from a reader.
func DecodePredictions(r io.Reader, name string) ([]Answer, error) {
	var out []Answer
	next := map[string]int{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 64<<20)
	line := 0
	for sc.Scan() {
		line++
		b := bytes.TrimSpace(sc.Bytes())
		if len(b) == 0 {
			continue
		}
		var p Prediction
		if err := json.Unmarshal(b, &p); err != nil {
			return nil, fmt.Errorf("%s:%d: not a JSON prediction: %w", name, line, err)
		}
		if p.TaskID == "" {
			return nil, fmt.Errorf("%s:%d: missing \"task_id\"", name, line)
		}
		if p.SQL == nil && p.Completion == nil {
			return nil, fmt.Errorf("%s:%d: give \"sql\" or \"completion\"", name, line)
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
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s:%d: %w", name, line+1, err)
	}
	return out, nil
}
