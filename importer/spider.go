package importer

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/sqlgym/sqlgym"
)

// spiderQuestion is one entry of Spider's dev.json / train_spider.json.
type spiderQuestion struct {
	DBID     string `json:"db_id"`
	Query    string `json:"query"`
	Question string `json:"question"`
}

// importSpider reads Spider: dev.json (a JSON array) beside database/, or
// the shared JSONL layout (dev.jsonl). Spider has no question ids, so a
// task's id is the file's name and the question's position:
// spider_dev_0000.
func importSpider(src string, rep *Report) ([]sqlgym.Task, error) {
	path, err := questionFile(src, "dev.json", "dev.jsonl")
	if err != nil {
		return nil, err
	}
	rep.DBDir = firstExisting(filepath.Join(filepath.Dir(path), "database"))
	if strings.HasSuffix(path, ".jsonl") {
		return readSharedJSONL(path, rep)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	var qs []spiderQuestion
	if err := json.Unmarshal(b, &qs); err != nil {
		return nil, fmt.Errorf("%s: not Spider's JSON array of questions: %w", path, err)
	}
	prefix := "spider_" + strings.TrimPrefix(strings.TrimSuffix(stem(path), "_spider"), "spider_")
	var tasks []sqlgym.Task
	for i, q := range qs {
		if q.DBID == "" || q.Query == "" {
			rep.skip("missing db_id or query")
			continue
		}
		tasks = append(tasks, sqlgym.Task{
			ID: fmt.Sprintf("%s_%04d", prefix, i), DB: q.DBID, Question: q.Question, SQL: q.Query,
		})
	}
	return tasks, nil
}
