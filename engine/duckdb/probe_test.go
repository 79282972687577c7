package duckdb

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/engine/enginetest"
)

func TestProbeMem(t *testing.T) {
	q := os.Getenv("PROBE_SQL")
	if q == "" {
		t.Skip()
	}
	eng, _ := openDB(t, enginetest.Fixture(), Options{})
	start := time.Now()
	_, err := eng.Query(context.Background(), q, sqlgym.Limits{Timeout: 300 * time.Millisecond})
	t.Logf("returned after %v: %v", time.Since(start), err)
	eng.Close()
	t.Logf("finished after %v", time.Since(start))
	b, _ := os.ReadFile("/proc/self/status")
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, "VmHWM") {
			t.Log(l)
		}
	}
}
