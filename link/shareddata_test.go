package link_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/catalog"
	"github.com/sqlgym/sqlgym/importer"
	"github.com/sqlgym/sqlgym/internal/testenv"
	"github.com/sqlgym/sqlgym/link"
	"github.com/sqlgym/sqlgym/shopdb"
)

// The thresholds docs/link.md reports: every gold table kept for at least
// 97% of the questions of each set, and on the wide database at most 15%
// of the tables and 20% of the characters of the full schema.
const (
	minAllTables  = 0.97
	maxWideTables = 0.15
	maxWideChars  = 0.20
)

func evaluate(t testing.TB, cat *catalog.Catalog, tasks []sqlgym.Task, opt link.Options) link.Summary {
	t.Helper()
	ev, err := link.Evaluate(context.Background(), cat, link.NewSource(link.ModeLinked, opt, 3), tasks)
	if err != nil {
		t.Fatal(err)
	}
	return ev.Summary
}

func logSummary(t *testing.T, name string, s, names link.Summary) {
	t.Logf("%s: %d tasks (%d measured): every gold table %.1f%% (names only %.1f%%), table recall %.1f%%, column recall %.1f%% shown / %.1f%% marked (names only %.1f%%), tables %.2f of %.1f (%.1f%%), chars %.1f%%",
		name, s.Tasks, s.Measured, 100*s.AllTables, 100*names.AllTables, 100*s.TableRecall, 100*s.ColumnRecall, 100*s.MarkedRecall, 100*names.MarkedRecall,
		s.TablesKept, s.TablesTotal, 100*s.TablesShare, 100*s.CharsShare)
}

func spiderTasks(t testing.TB, data string) ([]sqlgym.Task, *catalog.Catalog) {
	tasks, _, err := importer.Import("spider", filepath.Join(data, "spider_dev"))
	if err != nil {
		t.Fatal(err)
	}
	cat, err := catalog.New(catalog.Config{DBDir: filepath.Join(data, "spider_dev", "database"), CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cat.Close() })
	return tasks, cat
}

func TestRecallOnPublicData(t *testing.T) {
	data := testenv.SharedData(t)
	spider, spiderCat := spiderTasks(t, data)

	var defog []sqlgym.Task
	for _, f := range []string{"questions_gen_sqlite", "instruct_basic_sqlite", "instruct_advanced_sqlite"} {
		ts, _, err := importer.Import("defog", filepath.Join(data, "defog", f+".jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		defog = append(defog, ts...)
	}
	defogCat, err := catalog.New(catalog.Config{DBDir: filepath.Join(data, "defog", "database"), CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer defogCat.Close()

	shop, err := shopdb.LoadTasks(shopdb.Name)
	if err != nil {
		t.Fatal(err)
	}
	shopCat, err := catalog.New(catalog.Config{CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer shopCat.Close()

	wide, wideCat := mergeSpider(t, spider, spiderCat)
	sameGoldResults(t, spider, spiderCat, wide, wideCat)

	for _, c := range []struct {
		name  string
		cat   *catalog.Catalog
		tasks []sqlgym.Task
	}{{"spider_dev", spiderCat, spider}, {"defog", defogCat, defog}, {"shop", shopCat, shop}, {"spider_wide", wideCat, wide}} {
		s := evaluate(t, c.cat, c.tasks, link.Options{})
		names := evaluate(t, c.cat, c.tasks, link.Options{NoValues: true})
		logSummary(t, c.name, s, names)
		if s.Measured < s.Tasks*9/10 {
			t.Errorf("%s: only %d of %d golds name tables of their schema", c.name, s.Measured, s.Tasks)
		}
		if s.AllTables < minAllTables {
			t.Errorf("%s: every gold table kept for %.1f%% of tasks, want at least %.0f%%", c.name, 100*s.AllTables, 100*minAllTables)
		}
		if c.name == "spider_wide" {
			if s.TablesTotal < 70 {
				t.Errorf("the wide database has %.0f tables", s.TablesTotal)
			}
			if s.TablesShare > maxWideTables || s.CharsShare > maxWideChars {
				t.Errorf("wide: %.1f%% of tables, %.1f%% of characters kept; want at most %.0f%% and %.0f%%",
					100*s.TablesShare, 100*s.CharsShare, 100*maxWideTables, 100*maxWideChars)
			}
			if s.AllTables <= names.AllTables {
				t.Errorf("wide: value matching adds nothing (%.3f with, %.3f without)", s.AllTables, names.AllTables)
			}
		}
	}
}

// mergeSpider writes the Spider dev databases as one wide database into
// t.TempDir(), the golds moved onto it.
func mergeSpider(t testing.TB, tasks []sqlgym.Task, cat *catalog.Catalog) ([]sqlgym.Task, *catalog.Catalog) {
	t.Helper()
	var names []string
	seen := map[string]bool{}
	for _, tk := range tasks {
		if !seen[tk.DB] {
			seen[tk.DB] = true
			names = append(names, tk.DB)
		}
	}
	path := filepath.Join(t.TempDir(), "spider_wide.sqlite")
	schemas, err := link.Merge(context.Background(), cat, names, path)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]sqlgym.Task, len(tasks))
	for i, tk := range tasks {
		out[i] = link.MergeTask(tk, schemas[tk.DB], "spider_wide")
	}
	wide, err := catalog.New(catalog.Config{Refs: []string{"spider_wide=sqlite:" + path}, CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { wide.Close() })
	return out, wide
}

// BenchmarkLinkWide is one question linked on the 77-table merged Spider
// database, its value index already built.
func BenchmarkLinkWide(b *testing.B) {
	data := testenv.SharedData(b)
	spider, cat := spiderTasks(b, data)
	wide, wideCat := mergeSpider(b, spider, cat)
	eng, err := wideCat.Engine(context.Background(), "spider_wide")
	if err != nil {
		b.Fatal(err)
	}
	db, err := link.Prepare(context.Background(), eng, 3, true, 0)
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		t := &wide[i%len(wide)]
		db.Link(t.Question, t.Evidence, link.Options{})
	}
}

// BenchmarkPrepareWide is describing the merged database and building its
// value index: what a process pays once per database.
func BenchmarkPrepareWide(b *testing.B) {
	data := testenv.SharedData(b)
	spider, cat := spiderTasks(b, data)
	_, wideCat := mergeSpider(b, spider, cat)
	eng, err := wideCat.Engine(context.Background(), "spider_wide")
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := link.Prepare(context.Background(), eng, 3, true, 0); err != nil {
			b.Fatal(err)
		}
	}
}

// sameGoldResults checks the merge: every gold that runs on its own
// database runs on the merged one, its table references renamed, and
// returns the same rows.
func sameGoldResults(t *testing.T, orig []sqlgym.Task, origCat *catalog.Catalog, wide []sqlgym.Task, wideCat *catalog.Catalog) {
	t.Helper()
	ctx := context.Background()
	weng, err := wideCat.Engine(ctx, "spider_wide")
	if err != nil {
		t.Fatal(err)
	}
	ran := 0
	for i := range orig {
		eng, err := origCat.Engine(ctx, orig[i].DB)
		if err != nil {
			t.Fatal(err)
		}
		a, err := eng.Query(ctx, orig[i].SQL, sqlgym.Limits{})
		if err != nil {
			continue // a gold that fails on its own database (the data's fault)
		}
		ran++
		b, err := weng.Query(ctx, wide[i].SQL, sqlgym.Limits{})
		if err != nil {
			t.Errorf("%s: the renamed gold fails on the merged database: %v\n%s\n%s", orig[i].ID, err, orig[i].SQL, wide[i].SQL)
			continue
		}
		if len(a.Rows) != len(b.Rows) || len(a.Rows) > 0 && fmt.Sprint(a.Rows[0]) != fmt.Sprint(b.Rows[0]) {
			t.Errorf("%s: %d rows on its database, %d merged\n%s", orig[i].ID, len(a.Rows), len(b.Rows), wide[i].SQL)
		}
	}
	if ran < len(orig)*9/10 {
		t.Errorf("only %d of %d golds ran on their own databases", ran, len(orig))
	}
}
