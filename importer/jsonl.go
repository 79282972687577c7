package importer

import (
	"encoding/json"

	"github.com/sqlgym/sqlgym"
)

// sharedQuestion is the JSONL question layout of the data under
// ../shared/data (Spider dev, defog): one question per line.
type sharedQuestion struct {
	ID           string   `json:"id"`
	DBID         string   `json:"db_id"`
	Question     string   `json:"question"`
	GoldSQL      string   `json:"gold_sql"`
	Alternatives []string `json:"gold_sql_alternatives"`
	Evidence     *string  `json:"evidence"`
	Instructions *string  `json:"instructions"`
	Difficulty   string   `json:"difficulty"`
}

var sharedKnown = map[string]bool{"id": true, "db_id": true, "question": true, "gold_sql": true,
	"gold_sql_alternatives": true, "evidence": true, "instructions": true, "difficulty": true}

// readSharedJSONL reads the shared JSONL layout; fields it does not map
// (db_id_original, query_category, ...) are kept on the task.
func readSharedJSONL(path string, rep *Report) ([]sqlgym.Task, error) {
	var tasks []sqlgym.Task
	err := eachJSONLine(path, func(b []byte) error {
		var q sharedQuestion
		var all map[string]json.RawMessage
		if err := json.Unmarshal(b, &q); err != nil {
			return err
		}
		_ = json.Unmarshal(b, &all)
		if q.ID == "" || q.DBID == "" || q.GoldSQL == "" {
			rep.skip("missing id, db_id or gold_sql")
			return nil
		}
		t := sqlgym.Task{ID: q.ID, DB: q.DBID, Question: q.Question, SQL: q.GoldSQL, Difficulty: q.Difficulty,
			Alternatives: otherGolds(q.GoldSQL, q.Alternatives)}
		switch {
		case q.Evidence != nil:
			t.Evidence = *q.Evidence
		case q.Instructions != nil:
			t.Evidence = *q.Instructions
		}
		for k, v := range all {
			if !sharedKnown[k] {
				if t.Extra == nil {
					t.Extra = map[string]json.RawMessage{}
				}
				t.Extra[k] = v
			}
		}
		tasks = append(tasks, t)
		return nil
	})
	return tasks, err
}

// otherGolds drops the gold itself and repeats from a list of alternatives.
func otherGolds(gold string, alts []string) []string {
	var out []string
	seen := map[string]bool{gold: true}
	for _, a := range alts {
		if a != "" && !seen[a] {
			seen[a] = true
			out = append(out, a)
		}
	}
	return out
}
