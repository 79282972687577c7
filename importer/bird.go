package importer

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

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

// BIRD mini-dev ships its questions three times, one file per dialect
// (mini_dev_sqlite.json, mini_dev_mysql.json, mini_dev_postgresql.json in
// MINIDEV/, or the same as .jsonl in the evaluation's sqlite/ and mysql/
// folders), with the same question_id for the same question.
const (
	miniDevSQLite = "mini_dev_sqlite"
	miniDevMySQL  = "mini_dev_mysql"
)

// importBird reads BIRD: dev.json beside dev_databases/, or a mini-dev
// file. Ids are bird_<file>_<question_id>.
//
// Mini-dev's MySQL edition: given mini_dev_mysql.json(l), each task's gold
// is the MySQL one (the task is marked "dialect": "mysql"); given
// mini_dev_sqlite.json(l) with the MySQL file beside it (or in ../mysql/),
// the SQLite gold stays the task's sql and the MySQL gold goes in
// gold_sql_by_dialect.mysql, so one task file runs on both engines.
func importBird(src string, rep *Report) ([]sqlgym.Task, error) {
	path, err := questionFile(src, "dev.json", miniDevSQLite+".json", miniDevSQLite+".jsonl",
		miniDevMySQL+".json", miniDevMySQL+".jsonl", "train.json")
	if err != nil {
		return nil, err
	}
	dir := filepath.Dir(path)
	qs, err := readBirdQuestions(path)
	if err != nil {
		return nil, err
	}
	mysqlOnly := strings.HasPrefix(filepath.Base(path), miniDevMySQL)
	var mysqlGolds map[string]string
	if mysqlOnly {
		rep.Dialect = sqlgym.DialectMySQL
	} else if strings.HasPrefix(filepath.Base(path), miniDevSQLite) {
		mp := firstExisting(filepath.Join(dir, miniDevMySQL+".json"), filepath.Join(dir, miniDevMySQL+".jsonl"),
			filepath.Join(dir, "..", "mysql", miniDevMySQL+".json"), filepath.Join(dir, "..", "mysql", miniDevMySQL+".jsonl"))
		if mp != "" {
			mq, err := readBirdQuestions(mp)
			if err != nil {
				return nil, err
			}
			mysqlGolds = map[string]string{}
			for _, q := range mq {
				if id := q.QuestionID.String(); id != "" && q.SQL != "" {
					mysqlGolds[id] = q.SQL
				}
			}
		}
	}
	if !mysqlOnly {
		rep.DBDir = firstExisting(filepath.Join(dir, "dev_databases"), filepath.Join(dir, "train_databases"), filepath.Join(dir, "databases"))
	}
	prefix := "bird_" + stem(path)
	if mysqlOnly {
		// The same ids as the SQLite file's, so runs on both compare.
		prefix = "bird_" + miniDevSQLite
	}
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
		t := sqlgym.Task{
			ID: prefix + "_" + id, DB: q.DBID, Question: q.Question, SQL: q.SQL,
			Evidence: q.Evidence, Difficulty: q.Difficulty,
		}
		if mysqlOnly {
			t.Extra = map[string]json.RawMessage{"dialect": json.RawMessage(`"mysql"`)}
		}
		if g := mysqlGolds[id]; g != "" {
			t.GoldByDialect = map[sqlgym.Dialect]string{sqlgym.DialectMySQL: g}
			rep.MySQLGolds++
		} else if mysqlGolds != nil {
			rep.skip("no MySQL gold beside the SQLite one (kept, SQLite gold only)")
		}
		tasks = append(tasks, t)
	}
	return tasks, nil
}

// readBirdQuestions reads a JSON array of questions, or one question per
// line (the mini-dev evaluation's .jsonl files).
func readBirdQuestions(path string) ([]birdQuestion, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	var qs []birdQuestion
	if trimmed := bytes.TrimSpace(b); len(trimmed) > 0 && trimmed[0] == '[' {
		if err := json.Unmarshal(b, &qs); err != nil {
			return nil, sqlgym.Userf("point at BIRD's dev.json or a mini-dev question file", "%s: not BIRD's JSON array of questions: %w", path, err)
		}
		return qs, nil
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for n := 1; sc.Scan(); n++ {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		var q birdQuestion
		if err := json.Unmarshal(line, &q); err != nil {
			return nil, sqlgym.Userf("point at BIRD's dev.json or a mini-dev question file", "%s:%d: not a BIRD question: %w", path, n, err)
		}
		qs = append(qs, q)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	return qs, nil
}
