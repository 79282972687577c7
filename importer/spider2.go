package importer

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/internal/jsonl"
)

type spider2Question struct {
	InstanceID        string `json:"instance_id"`
	DB                string `json:"db"`
	Question          string `json:"question"`
	ExternalKnowledge string `json:"external_knowledge"`
}

type spider2Eval struct {
	InstanceID    string          `json:"instance_id"`
	ConditionCols json.RawMessage `json:"condition_cols"`
	IgnoreOrder   *bool           `json:"ignore_order"`
}

// importSpider2Lite reads Spider 2.0-Lite's SQLite slice: the questions in
// spider2-lite.jsonl whose instance id starts with "local", their gold SQL
// in evaluation_suite/gold/sql/ID.sql, and condition_cols and ignore_order
// from evaluation_suite/gold/spider2lite_eval.jsonl. Questions whose gold
// is published only as a result file, not as SQL, are skipped and counted.
func importSpider2Lite(src string, rep *Report) ([]sqlgym.Task, error) {
	path, err := questionFile(src, "spider2-lite.jsonl", "spider2-lite.json")
	if err != nil {
		return nil, err
	}
	root := filepath.Dir(path)
	goldDir := firstExisting(filepath.Join(root, "evaluation_suite", "gold", "sql"), filepath.Join(root, "gold", "sql"))
	evalPath := firstExisting(filepath.Join(root, "evaluation_suite", "gold", "spider2lite_eval.jsonl"), filepath.Join(root, "gold", "spider2lite_eval.jsonl"))
	rep.DBDir = firstExisting(filepath.Join(root, "resource", "databases", "spider2-localdb"))
	if goldDir == "" {
		return nil, sqlgym.Userf("point at the spider2-lite folder that holds evaluation_suite/gold/sql", "no gold SQL folder under %s", root)
	}
	evals := map[string]spider2Eval{}
	if evalPath != "" {
		if err := eachJSONLine(evalPath, func(b []byte) error {
			var e spider2Eval
			if err := json.Unmarshal(b, &e); err != nil {
				return err
			}
			evals[e.InstanceID] = e
			return nil
		}); err != nil {
			return nil, err
		}
	}
	var tasks []sqlgym.Task
	err = eachJSONLine(path, func(b []byte) error {
		var q spider2Question
		if err := json.Unmarshal(b, &q); err != nil {
			return err
		}
		if !strings.HasPrefix(q.InstanceID, "local") {
			rep.skip("not in the SQLite slice")
			return nil
		}
		gold, err := os.ReadFile(filepath.Join(goldDir, q.InstanceID+".sql"))
		if err != nil {
			rep.skip("no gold SQL published")
			return nil
		}
		t := sqlgym.Task{ID: q.InstanceID, DB: q.DB, Question: q.Question, SQL: strings.TrimSpace(string(gold))}
		if q.ExternalKnowledge != "" {
			if doc, err := os.ReadFile(filepath.Join(root, "resource", "documents", q.ExternalKnowledge)); err == nil {
				t.Evidence = string(doc)
			} else {
				t.Evidence = q.ExternalKnowledge
			}
		}
		if e, ok := evals[q.InstanceID]; ok {
			t.IgnoreOrder = e.IgnoreOrder
			t.ConditionCols = conditionCols(e.ConditionCols)
		}
		tasks = append(tasks, t)
		return nil
	})
	return tasks, err
}

// conditionCols reads Spider 2.0's condition_cols, a list of column
// indexes or, for a task with several gold results, a list of such lists;
// the first list belongs to the gold SQL.
func conditionCols(raw json.RawMessage) []int {
	var flat []int
	if json.Unmarshal(raw, &flat) == nil {
		return flat
	}
	var nested [][]int
	if json.Unmarshal(raw, &nested) == nil && len(nested) > 0 {
		return nested[0]
	}
	return nil
}

func eachJSONLine(path string, fn func([]byte) error) error {
	_, err := jsonl.ScanFile(path, jsonl.Strict, func(_ int, b []byte) error { return fn(b) })
	return err
}
