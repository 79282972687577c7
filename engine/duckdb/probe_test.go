package duckdb

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/engine/enginetest"
)

func TestProbeRunaways(t *testing.T) {
	if os.Getenv("PROBE") == "" {
		t.Skip()
	}
	for _, h := range append(enginetest.CommonHostile(), duckHostile()...) {
		if h.Budget == 0 {
			continue
		}
		eng, _ := openDB(t, enginetest.Fixture(), Options{})
		start := time.Now()
		_, err := eng.Query(context.Background(), h.SQL, sqlgym.Limits{Timeout: h.Budget})
		ret := time.Since(start)
		eng.Close()
		t.Logf("%-28s returned %6v finished %8v %.60v", h.Name, ret.Round(time.Millisecond), time.Since(start).Round(time.Millisecond), err)
	}
}
