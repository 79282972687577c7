package author

import (
	"context"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/sqlgym/sqlgym/engine/sqlite"
	"github.com/sqlgym/sqlgym/internal/testenv"
)

// keyAggregate matches a sum, average, extreme or ranking of one of
// car_1's key columns, which its keyless copy only implies.
var keyAggregate = regexp.MustCompile(`(?i)(SUM|AVG|MAX|MIN)\(\s*(DISTINCT\s+)?("?\w+"?\.)?"?(maker|country|continent|id|makeid|modelid|contid|countryid)"?\s*\)|ORDER BY\s+("?\w+"?\.)?"?(maker|country|continent|id|makeid|modelid|contid|countryid)"?\b`)

// TestSynthCar1UsesImpliedKeys: car_1's keyless copy names its keys
// maker, country and id; the implied keys keep the synth teacher from
// summing or ranking them ("What is the highest maker over all model
// lists?") and give it joins through the implied foreign keys.
func TestSynthCar1UsesImpliedKeys(t *testing.T) {
	data := testenv.SharedData(t)
	path := testenv.CopyFile(t, filepath.Join(data, "spider_dev", "database", "car_1", "car_1.sqlite"))
	s := prepare(t, path, nil)
	if s.Warning != "" {
		t.Errorf("car_1 implies keys, yet: %s", s.Warning)
	}
	tasks, cnt, err := collect(t, context.Background(), Config{DB: "car_1", Teacher: s.Teacher, Schema: s.Schema, Filter: s.Filter, N: 150, Seed: 4})
	if err != nil {
		t.Fatalf("%v (counts %+v)", err, cnt)
	}
	joins := 0
	for _, tk := range tasks {
		if keyAggregate.MatchString(tk.SQL) {
			t.Errorf("a key aggregated or ranked: %q\n    %s", tk.Question, tk.SQL)
		}
		if tk.Complexity == LevelJoin {
			joins++
		}
	}
	if joins == 0 {
		t.Errorf("no join task in %d: the implied foreign keys were not used", len(tasks))
	}
}

// TestSynthWarnsWithoutKeys: a database that neither declares nor
// implies a key gets a warning.
func TestSynthWarnsWithoutKeys(t *testing.T) {
	path := filepath.Join(t.TempDir(), "nokeys.sqlite")
	err := sqlite.Create(context.Background(), path, []string{
		`CREATE TABLE readings (place TEXT, reading REAL)`,
		`INSERT INTO readings VALUES ('a', 1.5), ('a', 2.5), ('b', 1.5)`,
	})
	if err != nil {
		t.Fatal(err)
	}
	s := prepare(t, path, nil)
	if s.Warning == "" {
		t.Error("no warning for a database without keys")
	}
}
