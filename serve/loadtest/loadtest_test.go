package loadtest

import (
	"context"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/internal/testenv"
	"github.com/sqlgym/sqlgym/serve"
)

func TestMarkKeepsTheStatement(t *testing.T) {
	cases := map[string]string{
		"SELECT 1":                                  "WITH sg_b1 AS (SELECT 1) SELECT 1",
		"with t AS (SELECT 2) SELECT * FROM t":      "WITH sg_b1 AS (SELECT 1), t AS (SELECT 2) SELECT * FROM t",
		"  SELECT * FROM (SELECT 3) AS sub LIMIT 1": "WITH sg_b1 AS (SELECT 1) SELECT * FROM (SELECT 3) AS sub LIMIT 1",
	}
	for in, want := range cases {
		if got := mark(in, "sg_b1"); got != want {
			t.Errorf("mark(%q) = %q, want %q", in, got, want)
		}
	}
	if mark("SELECT 1", "") != "SELECT 1" {
		t.Error("an empty marker changed the statement")
	}
}

// A small run end to end: the in-process server scores every batch, the
// marked (cold) golds still match, and the figures are filled in.
func TestRunSmall(t *testing.T) {
	rep, err := Run(context.Background(), Config{Tasks: 8, Samples: 4, Cold: 3, Warm: 3,
		Server: serve.Config{}})
	if err != nil {
		t.Fatal(err)
	}
	if rep.BatchSize != 32 || rep.Cold.Batches != 3 || rep.Warm.Batches != 3 || rep.Cold.RewardsPerSec <= 0 || rep.Warm.P99ms <= 0 {
		t.Fatalf("report %+v", rep)
	}
	// Half the answers are the gold or its lower-case form: a marked gold
	// that stopped matching would sink the cold share of correct answers.
	if rep.Cold.OutcomeCorrect < 0.3 || rep.DistinctCold < 8 {
		t.Fatalf("cold batches: %.2f correct, %.1f distinct statements", rep.Cold.OutcomeCorrect, rep.DistinctCold)
	}
}

func TestBatchShape(t *testing.T) {
	tasks := []sqlgym.Task{{ID: "a", SQL: "SELECT 1"}, {ID: "b", SQL: "SELECT 2"}}
	items := batch(rand.New(rand.NewPCG(1, 2)), tasks, 1, 2, 16, "")
	if len(items) != 32 || items[0].TaskID != "b" || items[16].TaskID != "a" {
		t.Fatalf("batch of %d, first %s, 17th %s", len(items), items[0].TaskID, items[16].TaskID)
	}
	if d := countDistinct(items); d < 3 || d > 12 {
		t.Fatalf("%d distinct answers in 32: not the duplicates sampling gives", d)
	}
}

// The generated HAProxy configuration names one server and one use-server
// rule per replica, and HAProxy itself accepts it (when installed).
func TestHAProxyConfig(t *testing.T) {
	cfg := HAProxyConfig("127.0.0.1:9000", []Backend{{ID: "r0", Addr: "127.0.0.1:9001"}, {ID: "sqlgym-1", Addr: "127.0.0.1:9002"}})
	for _, want := range []string{
		"bind 127.0.0.1:9000",
		"use-server r0 if { var(txn.replica) -m str r0 }",
		"use-server sqlgym-1 if { var(txn.replica) -m str sqlgym-1 }",
		"server sqlgym-1 127.0.0.1:9002 check",
		"option httpchk GET /readyz",
		"path,field(4,/),field(1,.)",
	} {
		if !strings.Contains(cfg, want) {
			t.Errorf("configuration lacks %q:\n%s", want, cfg)
		}
	}
	bin := testenv.Tool(t, "haproxy") // HAProxy itself checks the configuration
	path := filepath.Join(t.TempDir(), "haproxy.cfg")
	if err := os.WriteFile(path, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(bin, "-c", "-f", path).CombinedOutput(); err != nil {
		t.Fatalf("haproxy -c: %v\n%s", err, out)
	}
}
