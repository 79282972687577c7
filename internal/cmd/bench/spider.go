package bench

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/benchdb"
	"github.com/sqlgym/sqlgym/importer"
	"github.com/sqlgym/sqlgym/verify"
)

// spiderDB is the Spider database `verify --spider` batches on: the one
// verify's BenchmarkGRPOBatchSpider uses, so both measure the same batch.
const spiderDB = "world_1"

// spiderBatch is a GRPO batch on Spider dev's world_1: the first nTasks
// golds, each with 16 answers drawn as verify/bench_test.go's grpoBatch
// draws them (same seed, variants and weights: the gold, respelled,
// wrapped in LIMIT 1 or count(*), DISTINCT, a missing table). It returns
// the database file inside dir (Spider's dev folder).
func spiderBatch(dir string, nTasks int) (string, benchdb.Batch, error) {
	path := filepath.Join(dir, "database", spiderDB, spiderDB+".sqlite")
	if _, err := os.Stat(path); err != nil {
		return "", benchdb.Batch{}, sqlgym.Userf("--spider takes Spider's dev folder (the one holding dev.json and database/)", "--spider %s: %w", dir, err)
	}
	tasks, _, err := importer.Import("spider", dir)
	if err != nil {
		return "", benchdb.Batch{}, fmt.Errorf("--spider: %w", err)
	}
	var golds []string
	for _, t := range tasks {
		if t.DB == spiderDB && len(golds) < nTasks {
			golds = append(golds, t.SQL)
		}
	}
	if len(golds) < nTasks {
		return "", benchdb.Batch{}, sqlgym.Userf("give fewer --answers", "--spider: %s has %d tasks, %d asked for", spiderDB, len(golds), nTasks)
	}
	var b benchdb.Batch
	rng := rand.New(rand.NewPCG(1, 2))
	for i, g := range golds {
		id := fmt.Sprintf("%s_%02d", spiderDB, i)
		b.Tasks = append(b.Tasks, sqlgym.Task{ID: id, DB: spiderDB, SQL: g})
		variants := []string{g, strings.ToLower(g), "SELECT * FROM (" + g + ") LIMIT 1",
			"SELECT count(*) FROM (" + g + ")", strings.Replace(g, "SELECT", "SELECT DISTINCT", 1), "SELECT * FROM no_such_table"}
		weights := []int{8, 3, 2, 1, 1, 1}
		for s := range benchdb.Samples {
			r, k := rng.IntN(16), 0
			for r >= weights[k] {
				r -= weights[k]
				k++
			}
			b.Answers = append(b.Answers, verify.Answer{TaskID: id, Sample: s, SQL: variants[k]})
		}
	}
	return path, b, nil
}
