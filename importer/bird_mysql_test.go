package importer

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/sqlgym/sqlgym"
)

// writeMiniDev writes a two-question BIRD mini-dev in its MINIDEV layout
// (the SQLite and MySQL question files side by side), made up here in
// the shape of the published files: never their data.
func writeMiniDev(t *testing.T, dir string, jsonl bool) {
	t.Helper()
	sqliteQs := `[
  {"question_id": 3, "db_id": "debit_card", "question": "Ratio of customers paying in EUR to those paying in CZK?", "evidence": "ratio = count(EUR) / count(CZK)",
   "SQL": "SELECT CAST(SUM(IIF(Currency = 'EUR', 1, 0)) AS FLOAT) / SUM(IIF(Currency = 'CZK', 1, 0)) AS ratio FROM customers", "difficulty": "simple"},
  {"question_id": 9, "db_id": "debit_card", "question": "Which segment is customer 2 in?", "evidence": "",
   "SQL": "SELECT \"Segment\" FROM customers WHERE CustomerID = 2", "difficulty": "moderate"}
]`
	mysqlQs := `[
  {"question_id": 3, "db_id": "debit_card", "question": "Ratio of customers paying in EUR to those paying in CZK?", "evidence": "ratio = count(EUR) / count(CZK)",
   "SQL": "SELECT SUM(Currency = 'EUR') / SUM(Currency = 'CZK') AS ratio FROM customers", "difficulty": "simple"},
  {"question_id": 9, "db_id": "debit_card", "question": "Which segment is customer 2 in?", "evidence": "",
   "SQL": "SELECT ` + "`Segment`" + ` FROM customers WHERE CustomerID = 2", "difficulty": "moderate"}
]`
	write := func(name, body string) {
		if jsonl {
			var qs []birdQuestion
			if err := json.Unmarshal([]byte(body), &qs); err != nil {
				t.Fatal(err)
			}
			body = ""
			for _, q := range qs {
				b, _ := json.Marshal(map[string]any{"question_id": q.QuestionID, "db_id": q.DBID, "question": q.Question, "evidence": q.Evidence, "SQL": q.SQL, "difficulty": q.Difficulty})
				body += string(b) + "\n"
			}
			name += "l"
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("mini_dev_sqlite.json", sqliteQs)
	write("mini_dev_mysql.json", mysqlQs)
}

func TestImportBirdMiniDevMySQL(t *testing.T) {
	for _, jsonl := range []bool{false, true} {
		dir := t.TempDir()
		writeMiniDev(t, dir, jsonl)

		// The folder: SQLite golds, with the MySQL ones beside them.
		tasks, rep, err := Import("bird", dir)
		if err != nil {
			t.Fatal(err)
		}
		if len(tasks) != 2 || rep.MySQLGolds != 2 || tasks[0].ID != "bird_mini_dev_sqlite_3" || tasks[1].ID != "bird_mini_dev_sqlite_9" {
			t.Fatalf("jsonl %v: tasks %+v, report %+v", jsonl, tasks, rep)
		}
		if g := tasks[0].GoldFor(sqlgym.DialectMySQL); g != "SELECT SUM(Currency = 'EUR') / SUM(Currency = 'CZK') AS ratio FROM customers" {
			t.Errorf("MySQL gold %q", g)
		}
		if g := tasks[0].GoldFor(sqlgym.DialectSQLite); g != tasks[0].SQL || g == tasks[0].GoldFor(sqlgym.DialectMySQL) {
			t.Errorf("SQLite gold %q", g)
		}
		if tasks[1].Difficulty != "moderate" || tasks[0].Evidence == "" {
			t.Errorf("fields lost: %+v", tasks)
		}

		// The MySQL file alone: MySQL golds, the same ids.
		name := "mini_dev_mysql.json"
		if jsonl {
			name += "l"
		}
		tasks, rep, err = Import("bird", filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if len(tasks) != 2 || rep.Dialect != sqlgym.DialectMySQL || rep.DBDir != "" || tasks[1].ID != "bird_mini_dev_sqlite_9" ||
			tasks[1].SQL != "SELECT `Segment` FROM customers WHERE CustomerID = 2" || string(tasks[1].Extra["dialect"]) != `"mysql"` {
			t.Fatalf("jsonl %v: MySQL file: tasks %+v, report %+v", jsonl, tasks, rep)
		}
	}

	// The evaluation's layout: sqlite/ and mysql/ side by side.
	root := t.TempDir()
	for _, d := range []string{"sqlite", "mysql"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	writeMiniDev(t, filepath.Join(root, "sqlite"), true)
	if err := os.Rename(filepath.Join(root, "sqlite", "mini_dev_mysql.jsonl"), filepath.Join(root, "mysql", "mini_dev_mysql.jsonl")); err != nil {
		t.Fatal(err)
	}
	tasks, rep, err := Import("bird", filepath.Join(root, "sqlite", "mini_dev_sqlite.jsonl"))
	if err != nil || rep.MySQLGolds != 2 || tasks[1].GoldFor(sqlgym.DialectMySQL) != "SELECT `Segment` FROM customers WHERE CustomerID = 2" {
		t.Fatalf("sqlite/ beside mysql/: %v %+v %+v", err, rep, tasks)
	}
}
