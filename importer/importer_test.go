package importer

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/sqlgym/sqlgym/internal/testenv"
)

func TestImportSpiderLayout(t *testing.T) {
	tasks, rep, err := Import("spider", "testdata/spider")
	if err != nil {
		t.Fatal(err)
	}
	if len(tasks) != 3 || tasks[0].ID != "spider_dev_0000" || tasks[2].ID != "spider_dev_0002" {
		t.Fatalf("ids: %+v", tasks)
	}
	if tasks[1].DB != "concert_singer" || tasks[1].SQL != "SELECT name ,  country ,  age FROM singer ORDER BY age DESC" || tasks[2].Question != "Find the number of students whose age is older than 20." {
		t.Fatalf("task 1: %+v", tasks[1])
	}
	if !reflect.DeepEqual(rep.Database, []string{"concert_singer", "pets_1"}) {
		t.Fatalf("databases %v", rep.Database)
	}
}

func TestImportBirdLayout(t *testing.T) {
	tasks, _, err := Import("bird", "testdata/bird/dev.json")
	if err != nil {
		t.Fatal(err)
	}
	if len(tasks) != 2 || tasks[0].ID != "bird_dev_0" || tasks[1].ID != "bird_dev_7" {
		t.Fatalf("ids %+v", tasks)
	}
	if tasks[0].Evidence == "" || tasks[0].Difficulty != "simple" || tasks[1].Difficulty != "challenging" || tasks[0].DB != "california_schools" {
		t.Fatalf("fields lost: %+v", tasks[0])
	}
}

func TestImportSpider2LiteSQLiteSlice(t *testing.T) {
	tasks, rep, err := Import("spider2-lite", "testdata/spider2-lite")
	if err != nil {
		t.Fatal(err)
	}
	if len(tasks) != 1 || tasks[0].ID != "local001" || tasks[0].DB != "IPL" {
		t.Fatalf("tasks %+v", tasks)
	}
	if tasks[0].SQL != "SELECT bowler, economy\nFROM bowlers\nORDER BY economy\nLIMIT 1;" {
		t.Fatalf("gold %q", tasks[0].SQL)
	}
	if tasks[0].IgnoreOrder == nil || !*tasks[0].IgnoreOrder || !reflect.DeepEqual(tasks[0].ConditionCols, []int{0, 1}) {
		t.Fatalf("eval settings lost: %+v", tasks[0])
	}
	want := map[string]int{"not in the SQLite slice": 2, "no gold SQL published": 1}
	if !reflect.DeepEqual(rep.Skipped, want) {
		t.Fatalf("skipped %v, want %v", rep.Skipped, want)
	}
}

func TestImportDefogCSVExpandsAlternatives(t *testing.T) {
	tasks, _, err := Import("defog", "testdata/defog")
	if err != nil {
		t.Fatal(err)
	}
	if len(tasks) != 2 {
		t.Fatalf("%d tasks", len(tasks))
	}
	q := tasks[1]
	// Two groups: {r.name, r.id} (3 choices) x {r.rating} (1); the braces
	// inside the string literal stay.
	wantGold := "SELECT r.name , r.rating FROM restaurant AS r WHERE r.food_type = 'pizza, {thin}'"
	if q.SQL != wantGold || len(q.Alternatives) != 2 ||
		q.Alternatives[1] != "SELECT r.name, r.id , r.rating FROM restaurant AS r WHERE r.food_type = 'pizza, {thin}'" {
		t.Fatalf("gold %q alternatives %q", q.SQL, q.Alternatives)
	}
	if q.Evidence != "Use the restaurant table." || string(q.Extra["query_category"]) != `"where"` {
		t.Fatalf("fields: %+v", q)
	}
}

// The defog CSV row for questions_gen_sqlite_000 expands to exactly the
// gold and alternatives the shared data lists for it.
func TestDefogExpansionMatchesSharedData(t *testing.T) {
	data := testenv.SharedData(t)
	csvTasks, _, err := Import("defog", "testdata/defog")
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(filepath.Join(data, "defog", "questions_gen_sqlite.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	sc.Scan()
	var first struct {
		Gold string   `json:"gold_sql"`
		Alts []string `json:"gold_sql_alternatives"`
	}
	if err := json.Unmarshal(sc.Bytes(), &first); err != nil {
		t.Fatal(err)
	}
	got := append([]string{csvTasks[0].SQL}, csvTasks[0].Alternatives...)
	if !reflect.DeepEqual(got, first.Alts) || csvTasks[0].SQL != first.Gold {
		t.Fatalf("expansion\n%q\nshared data\n%q", got, first.Alts)
	}
}

func TestImportSharedData(t *testing.T) {
	data := testenv.SharedData(t)
	tasks, rep, err := Import("spider", filepath.Join(data, "spider_dev"))
	if err != nil {
		t.Fatal(err)
	}
	if len(tasks) != 972 || len(rep.Database) != 19 || tasks[0].ID != "spider_dev_0000" || tasks[0].DB != "concert_singer" {
		t.Fatalf("spider_dev: %d tasks over %d databases, first %+v", len(tasks), len(rep.Database), tasks[0])
	}
	if string(tasks[0].Extra["db_id_original"]) != `"concert_singer"` {
		t.Fatalf("db_id_original not kept: %v", tasks[0].Extra)
	}
	if rep.DBDir == "" {
		t.Fatal("database folder not found beside dev.jsonl")
	}
	total := 0
	for _, name := range []string{"questions_gen_sqlite.jsonl", "instruct_basic_sqlite.jsonl", "instruct_advanced_sqlite.jsonl"} {
		ts, _, err := Import("defog", filepath.Join(data, "defog", name))
		if err != nil {
			t.Fatal(err)
		}
		total += len(ts)
		for _, tk := range ts {
			for _, a := range tk.Alternatives {
				if a == tk.SQL {
					t.Fatalf("%s: the gold repeated among its alternatives", tk.ID)
				}
			}
		}
	}
	if total != 210+40+64 {
		t.Fatalf("defog: %d tasks, want 314", total)
	}
}

func TestImportErrorsSayWhatToDo(t *testing.T) {
	if _, _, err := Import("spider", t.TempDir()); err == nil {
		t.Fatal("an empty folder imported")
	}
	if _, _, err := Import("nope", "testdata/spider"); err == nil {
		t.Fatal("an unknown format imported")
	}
}
