package verify_test

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"
	"time"

	"github.com/sqlgym/sqlgym/catalog"
	"github.com/sqlgym/sqlgym/verify"
)

// BenchmarkComponents measures what the reward components cost on a warm
// 512-answer GRPO batch: each iteration verifies the batch without them
// and then with them, side by side, so the ratio does not depend on the
// machine's load drifting between two runs. With components the
// candidates are read whole (no early stop) and compared row by row.
func BenchmarkComponents(b *testing.B) {
	b.Run("shop", func(b *testing.B) {
		cat, err := catalog.New(catalog.Config{CacheDir: b.TempDir()})
		if err != nil {
			b.Fatal(err)
		}
		defer cat.Close()
		benchComponents(b, cat, shopGolds, "shop")
	})
	b.Run("large", func(b *testing.B) {
		path := filepath.Join(b.TempDir(), "events.sqlite")
		db, err := sql.Open("sqlite3", "file:"+path)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := db.Exec(`CREATE TABLE events(id INTEGER PRIMARY KEY, user_id INT, kind TEXT, amount REAL, note TEXT);
			WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM c WHERE i < 200000)
			INSERT INTO events SELECT i, i % 1000, 'k' || (i % 7), (i * 7919) % 1000 + 0.5, 'note ' || i FROM c`); err != nil {
			b.Fatal(err)
		}
		db.Close()
		cat, err := catalog.New(catalog.Config{Refs: []string{"events=sqlite:" + path}})
		if err != nil {
			b.Fatal(err)
		}
		defer cat.Close()
		benchComponents(b, cat, largeGolds, "events")
	})
}

func benchComponents(b *testing.B, cat *catalog.Catalog, golds []string, db string) {
	tasks, answers := grpoBatch(golds, db)
	ctx := context.Background()
	plain := verify.New(cat, tasks, verify.Config{})
	comp := verify.New(cat, tasks, verify.Config{Components: true})
	plain.VerifyBatch(ctx, answers) // warm: golds cached, pools open
	comp.VerifyBatch(ctx, answers)
	var pWall, cWall, pCPU, cCPU time.Duration
	for b.Loop() {
		t0, u0 := time.Now(), selfCPU()
		plain.VerifyBatch(ctx, answers)
		t1, u1 := time.Now(), selfCPU()
		comp.VerifyBatch(ctx, answers)
		pWall, pCPU = pWall+t1.Sub(t0), pCPU+u1-u0
		cWall, cCPU = cWall+time.Since(t1), cCPU+selfCPU()-u1
	}
	b.ReportMetric(float64(pWall.Milliseconds())/float64(b.N), "outcome-ms/op")
	b.ReportMetric(float64(cWall.Milliseconds())/float64(b.N), "components-ms/op")
	b.ReportMetric(float64(cWall)/float64(pWall), "wall-ratio")
	if pCPU > 0 {
		b.ReportMetric(float64(cCPU)/float64(pCPU), "cpu-ratio")
	}
}
