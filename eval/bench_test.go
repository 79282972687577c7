package eval_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/sqlgym/sqlgym/eval"
	"github.com/sqlgym/sqlgym/eval/evaltest"
)

// BenchmarkRunShop measures a whole run of 100 tasks x k=4 on the shop
// database against a scripted server that answers at once: the harness's
// own cost per sample (HTTP round trip, extraction, verification, one
// appended line), without model time.
func BenchmarkRunShop(b *testing.B) {
	tasks, replies := evaltest.ManyShopTasks(100)
	srv := evaltest.New(replies, seed0)
	defer srv.Close()
	for b.Loop() {
		cfg := setup(b, srv, tasks, filepath.Join(b.TempDir(), "run"))
		res, err := eval.Run(context.Background(), cfg)
		if err != nil || res.Drawn != 400 {
			b.Fatalf("drew %d: %v", res.Drawn, err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N*400), "µs/sample")
}
