package author

import (
	"context"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym/internal/testenv"
)

// TestSynthOnSpider runs synth on a database it has no lexicon for: names
// come from the generic fallback, foreign keys are inferred (the converted
// Spider files declare none).
func TestSynthOnSpider(t *testing.T) {
	data := testenv.SharedData(t)
	for _, db := range []string{"world_1", "dog_kennels"} {
		path := testenv.CopyFile(t, filepath.Join(data, "spider_dev", "database", db, db+".sqlite"))
		s := prepare(t, path, nil)
		tasks, cnt, err := collect(t, context.Background(), Config{DB: db, Teacher: s.Teacher, Schema: s.Schema, Filter: s.Filter, N: 40, Seed: 3})
		if err != nil {
			t.Fatalf("%s: %v (counts %+v)", db, err, cnt)
		}
		levels := map[string]bool{}
		for _, tk := range tasks {
			levels[tk.Complexity] = true
			if strings.Contains(tk.Question, "_") && !strings.Contains(tk.Question, "'") {
				t.Errorf("%s: question shows a raw identifier: %q", db, tk.Question)
			}
			if !strings.HasPrefix(tk.ID, db+"_") {
				t.Errorf("%s: id %s", db, tk.ID)
			}
		}
		if len(tasks) != 40 || len(levels) < 6 {
			t.Fatalf("%s: %d tasks over %d levels: %v", db, len(tasks), len(levels), levels)
		}
		if db == "dog_kennels" && !levels[LevelJoin] {
			t.Errorf("%s: no join task: foreign keys were not inferred", db)
		}
		for _, tk := range tasks[:5] {
			t.Logf("%s [%s] %s\n    %s", db, tk.Complexity, tk.Question, tk.SQL)
		}
	}
}

// TestSynthWorld1KeysAreNotMeasures: world_1 declares no keys. Its
// references (city.countrycode -> country.code by name, country.capital ->
// city.id by value) must never be summed, averaged or compared as numbers,
// the name rule must give joins, and the date level (no dates there) must
// be reported as skipped (issue 15: "the sum of the continents", AVG(capital),
// no join or date tasks and not a word).
func TestSynthWorld1KeysAreNotMeasures(t *testing.T) {
	data := testenv.SharedData(t)
	path := testenv.CopyFile(t, filepath.Join(data, "spider_dev", "database", "world_1", "world_1.sqlite"))
	s := prepare(t, path, nil)
	tasks, cnt, err := collect(t, context.Background(), Config{DB: "world_1", Teacher: s.Teacher, Schema: s.Schema, Filter: s.Filter, N: 300, Seed: 5})
	if err != nil {
		t.Fatalf("%v (counts %+v)", err, cnt)
	}
	idRE := regexp.MustCompile(`(?i)(SUM|AVG)\(\s*(\w+\.)?(capital|id|countrycode|code)\s*\)|\b(capital|city\.id|id)\s*(<|>|BETWEEN)|ORDER BY (\w+\.)?(capital|id) `)
	joins := 0
	for _, tk := range tasks {
		if m := idRE.FindString(tk.SQL); m != "" {
			t.Errorf("%s treats a key as a measure (%s): %s", tk.ID, m, tk.SQL)
		}
		if tk.Complexity == LevelJoin {
			joins++
		}
	}
	if joins == 0 {
		t.Error("no join task: city.countrycode -> country.code was not inferred from its name")
	}
	skipped := s.Teacher.Skipped()
	if len(skipped) != 1 || skipped[0].Level != LevelDate || !strings.Contains(skipped[0].Reason, "date") {
		t.Errorf("skipped levels %+v, want date alone", skipped)
	}
}

// The shop declares its keys: nothing is skipped there.
func TestSynthShopSkipsNoLevel(t *testing.T) {
	s := prepare(t, shopFile(t), ShopLexicon())
	if sk := s.Teacher.Skipped(); len(sk) != 0 {
		t.Fatalf("skipped on the shop: %+v", sk)
	}
}
