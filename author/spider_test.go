package author

import (
	"context"
	"path/filepath"
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
