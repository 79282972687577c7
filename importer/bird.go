package importer

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/sqlgym/sqlgym"
)

// birdQuestion is one entry of BIRD's dev.json.
type birdQuestion struct {
	QuestionID json.Number `json:"question_id"`
	DBID       string      `json:"db_id"`
	Question   string      `json:"question"`
	Evidence   string      `json:"evidence"`
	SQL        string      `json:"SQL"`
	Difficulty string      `json:"difficulty"`
}

// importBird reads BIRD: dev.json beside dev_databases/ (or a mini-dev
// file). Ids are bird_<file>_<question_id>.
func importBird(src string, rep *Report) ([]sqlgym.Task, error) {
	path, err := questionFile(src, "dev.json", "mini_dev_sqlite.json", "train.json")
	if err != nil {
		return nil, err
	}
	dir := filepath.Dir(path)
	rep.DBDir = firstExisting(filepath.Join(dir, "dev_databases"), filepath.Join(dir, "train_databases"), filepath.Join(dir, "databases"))
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	var qs []birdQuestion
	if err := json.Unmarshal(b, &qs); err != nil {
		return nil, fmt.Errorf("%s: not BIRD's JSON array of questions: %w", path, err)
	}
	prefix := "bird_" + stem(path)
	var tasks []sqlgym.Task
	for i, q := range qs {
		if q.DBID == "" || q.SQL == "" {
			rep.skip("missing db_id or SQL")
			continue
		}
		id := q.QuestionID.String()
		if id == "" {
			id = fmt.Sprint(i)
		}
		tasks = append(tasks, sqlgym.Task{
			ID: prefix + "_" + id, DB: q.DBID, Question: q.Question, SQL: q.SQL,
			Evidence: q.Evidence, Difficulty: q.Difficulty,
		})
	}
	return tasks, nil
}
