package mysql_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/engine/mysql"
	"github.com/sqlgym/sqlgym/engine/sqlite"
	"github.com/sqlgym/sqlgym/internal/testenv"
	"github.com/sqlgym/sqlgym/screen"
	"github.com/sqlgym/sqlgym/sqltext"
	"github.com/sqlgym/sqlgym/verify/compare"
)

// spiderExplained are the Spider dev golds that fail on MariaDB or give
// other rows than on SQLite for a reason other than a LIMIT through a tie
// or the case of table names, each with the documented rule behind it
// (docs/sandbox-mysql.md).
var spiderExplained = map[string]string{
	"spider_dev_0161": "a derived table needs an alias in MariaDB (FROM (SELECT ...) without AS x is a syntax error)",
	"spider_dev_0162": "a derived table needs an alias",
	"spider_dev_0744": "a derived table needs an alias",
	"spider_dev_0745": "a derived table needs an alias",
	"spider_dev_0830": "SHOW is a reserved word: a table named show must be quoted (`show`)",
	"spider_dev_0831": "SHOW is a reserved word",
	"spider_dev_0756": "COUNT (*) with a space is a syntax error unless sql_mode has IGNORE_SPACE",
	"spider_dev_0757": "COUNT (*) with a space is a syntax error unless IGNORE_SPACE",
	"spider_dev_0798": "AVG over DOUBLE summed in another order: 69.71499999999999 against 69.715, which multiset rounds to 69.71 and 69.72",
	"spider_dev_0799": "AVG summed in another order, at a rounding boundary",
	"spider_dev_0816": "a column neither grouped nor aggregated: SQLite takes it from the row of max(), MySQL from any row of the group",
	"spider_dev_0817": "a column neither grouped nor aggregated",
}

// spiderGold is one Spider dev question's gold.
type spiderGold struct {
	ID   string `json:"id"`
	DB   string `json:"db_id"`
	Gold string `json:"gold_sql"`
}

func readSpiderDev(t *testing.T, path string) []spiderGold {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []spiderGold
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var g spiderGold
		if err := json.Unmarshal(sc.Bytes(), &g); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		out = append(out, g)
	}
	return out
}

// spiderReport is what running Spider dev's golds on MariaDB against
// SQLite gave, by cause.
type spiderReport struct {
	golds, ran int
	// liteFails are golds SQLite refuses too (the shared copy renamed
	// some tables: high_schooler, not Highschooler): left out.
	liteFails int
	// folded are golds that ran only with their table names and
	// aliases written in the case the tables were created with.
	folded int
	// failed counts the golds MariaDB refused to run, by error kind.
	failed map[sqlgym.ErrorKind][]string
	// differ counts the golds whose rows differ from SQLite's under
	// multiset (with the gold's ORDER BY), by cause: "collation" when
	// the same gold on a copy under utf8mb4_bin agrees with SQLite,
	// "order" when the rows agree as a multiset but not in order.
	differ map[string][]string
}

// runSpiderOnMariaDB copies each named Spider dev database from its SQLite
// file into MariaDB twice (the server's default collation, and
// utf8mb4_bin), runs the databases' golds on the three, and sorts the
// disagreements by cause.
func runSpiderOnMariaDB(t *testing.T, dbs []string) spiderReport {
	admin := testenv.MySQL(t)
	data := testenv.SharedData(t)
	ctx := context.Background()
	golds := readSpiderDev(t, filepath.Join(data, "spider_dev", "dev.jsonl"))
	rep := spiderReport{failed: map[sqlgym.ErrorKind][]string{}, differ: map[string][]string{}}
	lim := sqlgym.Limits{Timeout: 10 * time.Second}
	for _, db := range dbs {
		path := filepath.Join(data, "spider_dev", "database", db, db+".sqlite")
		lite, err := sqlite.Open(path, sqlite.Options{})
		if err != nil {
			t.Fatal(err)
		}
		var tables []string
		open := func(collation string) *mysql.Engine {
			name := testenv.UniqueName("sqlgym_sp")
			t.Cleanup(func() { testenv.MySQLExec(t, admin, "DROP DATABASE IF EXISTS `"+name+"`") })
			testenv.MySQLExec(t, admin, "CREATE DATABASE `"+name+"` CHARACTER SET utf8mb4")
			var retyped []string
			tables, retyped = copySQLite(ctx, t, testenv.MySQLWithDB(t, admin, name), name, path, collation)
			if collation == "" && len(retyped) > 0 {
				t.Logf("%s: columns holding text although declared otherwise, copied as text: %v", db, retyped)
			}
			// The golds are trusted: the administrator reads them, through
			// the same sandbox (screen, read-only transaction).
			e, err := mysql.Open(ctx, testenv.MySQLWithDB(t, admin, name), mysql.Options{SkipAccountCheck: true})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { e.Close() })
			return e
		}
		ci, bin := open(""), open("utf8mb4_bin")
		for _, g := range golds {
			if g.DB != db {
				continue
			}
			rep.golds++
			want, err := lite.Query(ctx, g.Gold, lim)
			if err != nil {
				rep.liteFails++
				continue
			}
			gold := g.Gold
			got, err := ci.Query(ctx, gold, lim)
			var ee *sqlgym.ExecError
			if errors.As(err, &ee) && (ee.Kind == sqlgym.ErrKindNoTable || ee.Kind == sqlgym.ErrKindNoColumn) {
				// Table names and aliases are case-sensitive on a server
				// with lower_case_table_names=0 (Linux's default).
				if f := foldNames(gold, tables); f != gold {
					if got, err = ci.Query(ctx, f, lim); err == nil {
						rep.folded++
						gold = f
					}
				}
			}
			if err != nil {
				var ee *sqlgym.ExecError
				if !errors.As(err, &ee) {
					t.Errorf("%s: not the statement's error: %v\n%s", g.ID, err, g.Gold)
					continue
				}
				if ee.Kind == sqlgym.ErrKindForbidden || ee.Kind == sqlgym.ErrKindMulti {
					t.Errorf("%s: gold refused by the sandbox: %v\n%s", g.ID, err, g.Gold)
				}
				rep.failed[ee.Kind] = append(rep.failed[ee.Kind], g.ID)
				if spiderExplained[g.ID] == "" {
					t.Errorf("%s fails on MariaDB for no documented rule: %v", g.ID, err)
				}
				t.Logf("%s fails on MariaDB (%v): %s", g.ID, err, g.Gold)
				continue
			}
			rep.ran++
			opt := compare.Options{GoldOrdered: sqltext.HasTopLevelOrderBy(gold)}
			v := compare.Compare(compare.Multiset, got, want, opt)
			if v.Match {
				continue
			}
			cause := "other (" + v.Why + ")"
			if compare.Compare(compare.Multiset, got, want, compare.Options{}).Match {
				cause = "order"
			} else if tiedLimit(ctx, lite, gold, lim) {
				cause = "limit through a tie"
			} else if b, err := bin.Query(ctx, gold, lim); err == nil && compare.Compare(compare.Multiset, b, want, opt).Match {
				cause = "collation"
			}
			rep.differ[cause] = append(rep.differ[cause], g.ID)
			if strings.HasPrefix(cause, "other") && spiderExplained[g.ID] == "" {
				t.Errorf("%s: a difference from SQLite no documented rule explains", g.ID)
			}
			t.Logf("%s differs (%s): %s\n  MariaDB %v\n  SQLite  %v", g.ID, cause, g.Gold, firstRows(got), firstRows(want))
		}
		lite.Close()
	}
	return rep
}

// foldNames writes each unquoted word of sql that names one of tables, or
// an alias the statement gives with AS, in the case the table was created
// with (or the alias first written in).
func foldNames(sql string, tables []string) string {
	names := map[string]string{}
	toks := sqltext.Tokens(sql)
	for i, tk := range toks {
		if tk.IsWord("as") {
			for j := i + 1; j < len(toks); j++ {
				if toks[j].Kind == sqltext.Word {
					if _, seen := names[strings.ToLower(toks[j].Text)]; !seen {
						names[strings.ToLower(toks[j].Text)] = toks[j].Text
					}
				}
				if toks[j].Significant() {
					break
				}
			}
		}
	}
	for _, t := range tables {
		names[strings.ToLower(t)] = t
	}
	var b strings.Builder
	for _, tk := range toks {
		if n, ok := names[strings.ToLower(tk.Text)]; ok && tk.Kind == sqltext.Word {
			b.WriteString(n)
		} else {
			b.WriteString(tk.Text)
		}
	}
	return b.String()
}

// tiedLimit reports whether gold ends in ORDER BY ... LIMIT n and its
// n-th and (n+1)-th rows share their sort keys on e: which of the tied
// rows the LIMIT keeps is the plan's choice, not a rule of either engine.
func tiedLimit(ctx context.Context, e sqlgym.Engine, gold string, lim sqlgym.Limits) bool {
	q, at, ok := screen.TieCheck(gold)
	if !ok {
		return false
	}
	rs, err := e.Query(ctx, q, lim)
	if err != nil || len(rs.Rows) <= at {
		return false
	}
	a, b := rs.Rows[at-1], rs.Rows[at]
	for i := range a {
		if a[i].String() != b[i].String() {
			return false
		}
	}
	return true
}

func (r spiderReport) summary() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d golds (%d fail on SQLite too, left out): %d run on MariaDB (%d only with table names and aliases in their stored case)", r.golds, r.liteFails, r.ran, r.folded)
	for _, m := range []map[string][]string{kindMap(r.failed), r.differ} {
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			fmt.Fprintf(&b, "; %s %d", k, len(m[k]))
		}
	}
	return b.String()
}

func kindMap(m map[sqlgym.ErrorKind][]string) map[string][]string {
	out := map[string][]string{}
	for k, v := range m {
		out["fails "+string(k)] = v
	}
	return out
}

func (r spiderReport) differing() int {
	n := 0
	for _, ids := range r.differ {
		n += len(ids)
	}
	return n
}

// TestSpiderDevDatabase is the fast version of TestSpiderDevOnMariaDB: one
// Spider dev database, concert_singer, copied from its SQLite file; its 45
// golds all run on MariaDB and give SQLite's rows, but for two whose
// ORDER BY count(*) DESC LIMIT 1 cuts through a tie.
func TestSpiderDevDatabase(t *testing.T) {
	rep := runSpiderOnMariaDB(t, []string{"concert_singer"})
	t.Log(rep.summary())
	if rep.golds != 45 || rep.ran != rep.golds || rep.differing() != len(rep.differ["limit through a tie"]) {
		t.Errorf("concert_singer: %s", rep.summary())
	}
}

// TestSpiderDevOnMariaDB copies the 19 Spider dev databases into MariaDB
// and runs the 972 dev golds: every gold runs or fails as the statement's
// own error, and each disagreement with SQLite is counted by cause, the
// causes other than ties and table-name case listed in spiderExplained.
// docs/sandbox-mysql.md gives the figures.
func TestSpiderDevOnMariaDB(t *testing.T) {
	testenv.Slow(t, "copies 19 Spider databases into MariaDB twice and runs 972 golds on each engine (about 20 s)")
	data := testenv.SharedData(t)
	entries, err := os.ReadDir(filepath.Join(data, "spider_dev", "database"))
	if err != nil {
		t.Fatal(err)
	}
	var dbs []string
	for _, e := range entries {
		if e.IsDir() {
			dbs = append(dbs, e.Name())
		}
	}
	rep := runSpiderOnMariaDB(t, dbs)
	t.Log(rep.summary())
	if rep.golds != 972 {
		t.Errorf("%d golds, want Spider dev's 972", rep.golds)
	}
}

// firstRows is up to the first three rows of r, for messages.
func firstRows(r *sqlgym.ResultSet) [][]sqlgym.Value {
	return r.Rows[:min(3, len(r.Rows))]
}
