package root

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym"

	"github.com/sqlgym/sqlgym/engine/mysql"
	"github.com/sqlgym/sqlgym/engine/sqlite"
	"github.com/sqlgym/sqlgym/internal/testenv"
	"github.com/sqlgym/sqlgym/shopdb"

	"github.com/sqlgym/sqlgym/internal/cmd/cmdkit"
)

// TestDBCreateShopMySQL creates the shop on the test MySQL server through
// the command and checks it holds the same rows as SQLite's, that a
// second create is refused without --replace, and that --replace works.
func TestDBCreateShopMySQL(t *testing.T) {
	admin := testenv.MySQL(t)
	sock := "/run/mysqld/mysqld.sock"
	if !strings.Contains(admin, "unix("+sock+")") {
		t.Skip("this test reaches the server through " + sock + " as SQLGYM_TEST_MYSQL's account")
	}
	user := strings.SplitN(admin, "@", 2)[0]
	url := "mysql://" + user + "@/?socket=" + sock
	name := testenv.UniqueName("shop")
	t.Cleanup(func() { testenv.MySQLExec(t, admin, "DROP DATABASE IF EXISTS `"+name+"`") })
	code, out, errOut := run(t, "db", "create", "shop", "--engine", "mysql", "--dsn", url, "--schema", name)
	if code != cmdkit.ExitOK || !strings.Contains(out, "--db shop=mysql://") {
		t.Fatalf("mysql: exit %d %s %s", code, out, errOut)
	}
	if code, _, errOut := run(t, "db", "create", "shop", "--engine", "mysql", "--dsn", url, "--schema", name); code == cmdkit.ExitOK || !strings.Contains(errOut, "--replace") {
		t.Fatalf("mysql overwrite without --replace: exit %d %q", code, errOut)
	}
	if code, _, errOut := run(t, "db", "create", "shop", "--engine", "mysql", "--dsn", url, "--schema", name, "--replace"); code != cmdkit.ExitOK {
		t.Fatalf("mysql --replace: exit %d %s", code, errOut)
	}
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "s.sqlite")
	if err := sqlite.Create(ctx, path, shopdb.Statements()); err != nil {
		t.Fatal(err)
	}
	se, err := sqlite.Open(path, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer se.Close()
	want, err := shopdb.EngineChecksums(ctx, se)
	if err != nil {
		t.Fatal(err)
	}
	me, err := mysql.Open(ctx, testenv.MySQLWithDB(t, admin, name), mysql.Options{SkipAccountCheck: true})
	if err != nil {
		t.Fatal(err)
	}
	defer me.Close()
	got, err := shopdb.EngineChecksums(ctx, me)
	if err != nil {
		t.Fatal(err)
	}
	if !equalChecksums(got, want) {
		t.Fatalf("mysql holds other data:\n%v\n%v", got, want)
	}
}

// mysqlShopTasks writes n shop tasks, each with its MySQL gold where its
// SQLite one does not run there, to a task file.
func mysqlShopTasks(t *testing.T, n int) string {
	t.Helper()
	all, err := shopdb.Tasks()
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := sqlgym.WriteTasks(&buf, all[:n]); err != nil {
		t.Fatal(err)
	}
	return writeFile(t, "tasks.jsonl", buf.String())
}

// TestCommandsOnMySQL runs each command that reads a database (db schema,
// author, screen, link, eval, export) on the shop in MariaDB, read by a
// SELECT-only account through --db shop=mysql://..., and checks what each
// produced. serve is checked in serve's TestServeMySQL.
func TestCommandsOnMySQL(t *testing.T) {
	reader, _ := testenv.MySQLReader(t, shopdb.Statements())
	ref := "shop=" + testenv.MySQLURL(t, reader)
	tasks := mysqlShopTasks(t, 40)
	dir := t.TempDir()

	code, out, errOut := run(t, "db", "schema", "--db", ref, "shop")
	if code != cmdkit.ExitOK || !strings.Contains(out, "CREATE TABLE orders (") || !strings.Contains(out, "FOREIGN KEY (customer_id) REFERENCES customers (customer_id)") {
		t.Fatalf("db schema: exit %d\n%s\n%s", code, out, errOut)
	}

	authored := filepath.Join(dir, "authored.jsonl")
	code, out, errOut = run(t, "author", "--db", ref, "--n", "24", "--out", authored, "--json")
	if code != cmdkit.ExitOK {
		t.Fatalf("author: exit %d\n%s", code, errOut)
	}
	got, err := sqlgym.ReadTasks(authored)
	if err != nil || len(got) != 24 {
		t.Fatalf("author wrote %d tasks (%v):\n%s", len(got), err, out)
	}
	levels := map[string]bool{}
	for _, task := range got {
		levels[task.Complexity] = true
		if task.DB != "shop" {
			t.Errorf("authored task %s on database %q", task.ID, task.DB)
		}
	}
	if len(levels) < 5 {
		t.Errorf("authored tasks span %d levels (%v), want at least 5 of the 8", len(levels), levels)
	}

	code, out, errOut = run(t, "screen", "--tasks", tasks, "--db", ref, "--json")
	var scr struct {
		Tasks, Screened, Weak, GoldErrors, InfraErrors int
	}
	if code != cmdkit.ExitOK || json.Unmarshal([]byte(out), &scr) != nil {
		t.Fatalf("screen: exit %d\n%s\n%s", code, out, errOut)
	}
	if scr.Tasks != 40 || scr.Screened < 35 || scr.GoldErrors != 0 || scr.InfraErrors != 0 || scr.Weak == 0 {
		t.Errorf("screen on MySQL: %+v", scr)
	}

	code, out, errOut = run(t, "link", "--tasks", tasks, "--db", ref, "--json")
	var lk struct {
		Summary struct {
			Measured    int     `json:"measured"`
			TableRecall float64 `json:"table_recall"`
			TablesKept  float64 `json:"tables_kept"`
			TablesTotal int     `json:"tables_total"`
		} `json:"summary"`
	}
	if code != cmdkit.ExitOK || json.Unmarshal([]byte(out), &lk) != nil {
		t.Fatalf("link: exit %d\n%s\n%s", code, out, errOut)
	}
	if s := lk.Summary; s.Measured != 40 || s.TableRecall < 0.9 || s.TablesTotal != 8 || s.TablesKept >= 8 {
		t.Errorf("link on MySQL: %+v", s)
	}

	runDir := filepath.Join(dir, "run")
	code, out, errOut = run(t, "eval", "--tasks", tasks, "--db", ref, "--policy", "baseline", "--k", "1", "--split", "all", "--out", runDir, "--json")
	if code != cmdkit.ExitOK {
		t.Fatalf("eval: exit %d\n%s", code, errOut)
	}
	var sum struct {
		Outcomes map[string]int `json:"outcomes"`
	}
	if err := json.Unmarshal([]byte(out), &sum); err != nil {
		t.Fatalf("eval --json: %v\n%s", err, out)
	}
	n := 0
	for o, c := range sum.Outcomes {
		n += c
		if o == string(sqlgym.OutcomeInfraError) || o == string(sqlgym.OutcomeGoldError) {
			t.Errorf("eval: %d answers %s", c, o)
		}
	}
	if n != 40 {
		t.Errorf("eval judged %d answers, want 40: %v", n, sum.Outcomes)
	}
	manifest, err := os.ReadFile(filepath.Join(runDir, "manifest.json"))
	if err != nil || !strings.Contains(string(manifest), `"mysql:`) {
		t.Errorf("manifest without a mysql: digest (%v):\n%s", err, manifest)
	}
	// The same run continued on the same data resumes; nothing is redone.
	if code, _, errOut := run(t, "eval", "--tasks", tasks, "--db", ref, "--policy", "baseline", "--k", "1", "--split", "all", "--out", runDir); code != cmdkit.ExitOK {
		t.Fatalf("eval resumed: exit %d\n%s", code, errOut)
	}

	exported := filepath.Join(dir, "train.jsonl")
	code, _, errOut = run(t, "export", "--tasks", tasks, "--db", ref, "--format", "trl", "--out", exported)
	if code != cmdkit.ExitOK {
		t.Fatalf("export: exit %d\n%s", code, errOut)
	}
	b, err := os.ReadFile(exported)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) < 20 || !strings.Contains(lines[0], "Database schema (MySQL)") || !strings.Contains(lines[0], "CREATE TABLE orders") {
		t.Errorf("export wrote %d rows; first:\n%.400s", len(lines), lines[0])
	}
}

// TestImportBirdMySQLVerifies imports a BIRD mini-dev made up in the test
// (its SQLite and MySQL question files side by side, the published
// layout) and judges answers on MariaDB: the MySQL gold is the one run
// (the SQLite gold's IIF does not exist there), from the merged task file
// and from the MySQL file alone.
func TestImportBirdMySQLVerifies(t *testing.T) {
	reader, _ := testenv.MySQLReader(t, []string{
		"CREATE TABLE customers (CustomerID INT PRIMARY KEY, Segment VARCHAR(10), Currency VARCHAR(3))",
		"INSERT INTO customers VALUES (1, 'SME', 'EUR'), (2, 'LAM', 'CZK'), (3, 'KAM', 'EUR'), (4, 'SME', 'CZK'), (5, 'LAM', 'EUR')",
	})
	dir := t.TempDir()
	q := func(id int, sqlite, mysql string) (string, string) {
		f := `{"question_id": %d, "db_id": "debit_card", "question": "q%d", "evidence": "", "SQL": %q, "difficulty": "simple"}`
		return fmt.Sprintf(f, id, id, sqlite), fmt.Sprintf(f, id, id, mysql)
	}
	l1, m1 := q(3, "SELECT CAST(SUM(IIF(Currency = 'EUR', 1, 0)) AS FLOAT) / SUM(IIF(Currency = 'CZK', 1, 0)) FROM customers",
		"SELECT SUM(Currency = 'EUR') / SUM(Currency = 'CZK') FROM customers")
	l2, m2 := q(9, `SELECT "Segment" FROM customers WHERE CustomerID = 2`, "SELECT `Segment` FROM customers WHERE CustomerID = 2")
	for name, body := range map[string]string{"mini_dev_sqlite.json": "[" + l1 + "," + l2 + "]", "mini_dev_mysql.json": "[" + m1 + "," + m2 + "]"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	preds := writeFile(t, "preds.jsonl",
		`{"task_id":"bird_mini_dev_sqlite_3","sql":"SELECT COUNT(CASE WHEN Currency = 'EUR' THEN 1 END) / COUNT(CASE WHEN Currency = 'CZK' THEN 1 END) FROM customers"}`+"\n"+
			`{"task_id":"bird_mini_dev_sqlite_9","sql":"SELECT Segment FROM customers WHERE Currency = 'CZK' AND CustomerID < 3"}`+"\n")
	ref := "debit_card=" + testenv.MySQLURL(t, reader)
	for _, src := range []string{dir, filepath.Join(dir, "mini_dev_mysql.json")} {
		tasks := filepath.Join(t.TempDir(), "bird.jsonl")
		code, out, errOut := run(t, "import", "bird", src, "--out", tasks)
		if code != cmdkit.ExitOK {
			t.Fatalf("import %s: exit %d\n%s", src, code, errOut)
		}
		if src == dir && !strings.Contains(out, "2 tasks carry their MySQL gold too") ||
			src != dir && !strings.Contains(out, "--db debit_card=mysql://USER:PASS@HOST:3306/BIRD") {
			t.Errorf("import %s said:\n%s", src, out)
		}
		code, out, errOut = run(t, "verify", "--tasks", tasks, "--predictions", preds, "--db", ref, "--json")
		var res struct {
			Outcomes map[string]int `json:"outcomes"`
		}
		if code != cmdkit.ExitOK || json.Unmarshal([]byte(out), &res) != nil || res.Outcomes["correct"] != 2 {
			t.Fatalf("verify on MariaDB (tasks from %s): exit %d\n%s\n%s", src, code, out, errOut)
		}
	}
}

// TestVariantsCommandMySQL makes variants of a toy database on MariaDB:
// databases NAME_vK made by the administrator and readable by the reader,
// on which verify --variants rejects the near miss the original rewards;
// a second run is refused without --replace and works with it.
func TestVariantsCommandMySQL(t *testing.T) {
	t.Setenv("SQLGYM_CACHE", t.TempDir())
	admin := testenv.MySQL(t)
	reader, _ := testenv.MySQLReader(t, variantsToyStmts())
	name := testenv.UniqueName("toy")
	t.Cleanup(func() {
		dbs, err := mysql.DatabasesLike(context.Background(), admin, "^"+name+"_")
		if err != nil {
			t.Errorf("list databases: %v", err)
		}
		for _, d := range dbs {
			testenv.MySQLExec(t, admin, "DROP DATABASE IF EXISTS `"+d+"`")
		}
	})
	adminURL := testenv.MySQLURL(t, admin)
	urls, args := variantsOnEngine(t, name, name+"="+testenv.MySQLURL(t, reader), "mysql://", "--mysql-admin", adminURL)
	for i, u := range urls {
		if want := fmt.Sprintf("%s_v%d", name, i+1); mysql.URLDatabase(u) != want {
			t.Errorf("variant %d at %s: want database %s", i+1, u, want)
		}
	}
	if left, _ := mysql.DatabasesLike(context.Background(), admin, "^"+name+"_c"); len(left) > 0 {
		t.Errorf("candidate databases left behind: %v", left)
	}
	// The same --out again resumes; without done.json (a stopped run)
	// its databases are dropped and made again without --replace.
	out := args[slices.Index(args, "--out")+1]
	if code, _, errOut := run(t, args...); code != cmdkit.ExitOK || !strings.Contains(errOut, "resumed") {
		t.Errorf("same command again: exit %d, stderr %q; want the folder resumed", code, errOut)
	}
	if err := os.Remove(filepath.Join(out, name, "done.json")); err != nil {
		t.Fatal(err)
	}
	if code, _, errOut := run(t, args...); code != cmdkit.ExitOK || !strings.Contains(errOut, "made again") {
		t.Errorf("after a stopped run: exit %d, stderr %q; want the folder made again", code, errOut)
	}
	args[slices.Index(args, "--out")+1] = filepath.Join(t.TempDir(), "v2")
	code, _, errOut := run(t, args...)
	if code == cmdkit.ExitOK || !strings.Contains(errOut, "--replace") || !strings.Contains(errOut, name+"_v1") {
		t.Errorf("second run: exit %d, stderr %q; want a refusal naming the databases and --replace", code, errOut)
	}
}

// shopVariantsExplained are the weak tasks whose mutants SQLite's shop
// variant kills and MariaDB's does not, each with the reason. The planner
// and the aimed edits are the same on both; what is not is SQLite's own.
var shopVariantsExplained = map[string]string{
	// The thinning (variants/trim.go) runs on SQLite only: it deletes the
	// original rows the variant does not need, among them the reviews with
	// the lowest review_id and product_id, so MIN(review_id) and
	// MIN(product_id) leave MIN(rating)'s value there and not on MariaDB
	// (nor on PostgreSQL).
	"shop_aggregate_b538244a": "SQLite-only thinning",
}

// TestVariantsShopMySQL runs `sqlgym variants` on the shop's first 30
// tasks in MariaDB and, with the same settings, in SQLite, and checks that
// the variants judge alike: the same tasks screened and weak before, no
// gold or infrastructure error, the variants kill on MariaDB, every task
// SQLite's variant kills a mutant of is killed on MariaDB too unless
// shopVariantsExplained says why not, and verify --variants on MariaDB
// rejects a killed mutant the original accepts.
func TestVariantsShopMySQL(t *testing.T) {
	testenv.Slow(t, "sqlgym variants on the shop twice, in SQLite and in MariaDB: minutes on a loaded machine")
	t.Setenv("SQLGYM_CACHE", t.TempDir())
	admin := testenv.MySQL(t)
	reader, _ := testenv.MySQLReader(t, shopdb.Statements())
	// A name of its own, so the variant databases (NAME_vK) are too.
	name := testenv.UniqueName("shop")
	t.Cleanup(func() {
		dbs, err := mysql.DatabasesLike(context.Background(), admin, "^"+name+"_")
		if err != nil {
			t.Errorf("list databases: %v", err)
		}
		for _, d := range dbs {
			testenv.MySQLExec(t, admin, "DROP DATABASE IF EXISTS `"+d+"`")
		}
	})
	lines := strings.SplitN(string(shopdb.TasksJSONL()), "\n", 31)[:30]
	var tasks []string
	for _, l := range lines {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatal(err)
		}
		m["db"] = name
		b, _ := json.Marshal(m)
		tasks = append(tasks, string(b))
	}
	taskFile := writeFile(t, "tasks.jsonl", strings.Join(tasks, "\n")+"\n")
	sqlitePath := filepath.Join(t.TempDir(), "shop.sqlite")
	if err := sqlite.Create(context.Background(), sqlitePath, shopdb.Statements()); err != nil {
		t.Fatal(err)
	}
	ref := name + "=" + testenv.MySQLURL(t, reader)

	type dbReport struct {
		Before struct {
			Screened, Weak, GoldErrors, InfraErrors int
		} `json:"before"`
		After struct {
			Weak int
		} `json:"after"`
		Killed   map[string][]struct{ SQL string } `json:"killed"`
		Variants []struct{ Name, URL string }      `json:"variants"`
	}
	generate := func(engine string, args ...string) (dbReport, string) {
		t.Helper()
		out := filepath.Join(t.TempDir(), engine)
		args = append([]string{"variants", "--tasks", taskFile, "--out", out, "--max-variants", "1", "--candidates", "2", "--seed", "7"}, args...)
		code, _, errOut := run(t, args...)
		if code != cmdkit.ExitOK {
			t.Fatalf("variants on %s: exit %d\n%s", engine, code, errOut)
		}
		b, err := os.ReadFile(filepath.Join(out, "manifest.json"))
		if err != nil {
			t.Fatal(err)
		}
		var m struct{ Databases []dbReport }
		if err := json.Unmarshal(b, &m); err != nil || len(m.Databases) != 1 {
			t.Fatalf("manifest of %s: %v\n%.500s", engine, err, b)
		}
		r := m.Databases[0]
		t.Logf("%s: weak %d of %d before, %d after; %d tasks with kills; %d variants", engine, r.Before.Weak, r.Before.Screened, r.After.Weak, len(r.Killed), len(r.Variants))
		return r, filepath.Join(out, "tasks.jsonl")
	}
	lite, _ := generate("sqlite", "--db", name+"=sqlite:"+sqlitePath)
	my, varTasks := generate("mysql", "--db", ref, "--mysql-admin", testenv.MySQLURL(t, admin))

	if my.Before.Screened != lite.Before.Screened || my.Before.Weak != lite.Before.Weak {
		t.Errorf("before the variants MariaDB screened %d tasks, %d weak; SQLite %d, %d", my.Before.Screened, my.Before.Weak, lite.Before.Screened, lite.Before.Weak)
	}
	if my.Before.GoldErrors+my.Before.InfraErrors != 0 {
		t.Errorf("MariaDB: %d gold errors, %d infrastructure errors", my.Before.GoldErrors, my.Before.InfraErrors)
	}
	if my.After.Weak >= my.Before.Weak || len(my.Variants) != 1 {
		t.Fatalf("MariaDB: weak %d before, %d after, %d variants: the variants killed nothing", my.Before.Weak, my.After.Weak, len(my.Variants))
	}
	for id, ks := range lite.Killed {
		if len(my.Killed[id]) == 0 && shopVariantsExplained[id] == "" {
			t.Errorf("task %s: SQLite's variant kills %d mutants (%s ...), MariaDB's none, and no rule explains it", id, len(ks), ks[0].SQL)
		}
		if len(my.Killed[id]) != len(ks) {
			t.Logf("task %s: %d mutants killed on SQLite, %d on MariaDB", id, len(ks), len(my.Killed[id]))
		}
	}
	for id := range my.Killed {
		if len(lite.Killed[id]) == 0 {
			t.Logf("task %s: killed on MariaDB only", id)
		}
	}
	if left, _ := mysql.DatabasesLike(context.Background(), admin, "^"+name+"_c"); len(left) > 0 {
		t.Errorf("candidate databases left behind: %v", left)
	}

	// Judged through the task file the command wrote (db_variants): a
	// killed mutant is right on the original and wrong with --variants.
	var id, wrong string
	for k, ks := range my.Killed {
		id, wrong = k, ks[0].SQL
		break
	}
	preds := writeFile(t, "preds.jsonl", fmt.Sprintf(`{"task_id":%q,"sql":%q}`+"\n", id, wrong))
	for _, c := range []struct {
		flags []string
		want  string
	}{{nil, `"outcome":"correct"`}, {[]string{"--variants"}, `"outcome":"wrong"`}} {
		args := append([]string{"verify", "--tasks", varTasks, "--db", ref, "--predictions", preds}, c.flags...)
		code, out, errOut := run(t, args...)
		if !strings.Contains(out, c.want) {
			t.Errorf("verify %v of %s's killed mutant %q: exit %d, want %s in:\n%s%s", c.flags, id, wrong, code, c.want, out, errOut)
		}
	}
}
