package verify

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/failure"
)

var updateGolden = flag.Bool("update", false, "rewrite testdata/*.golden from the current output")

// The lines verify writes (--out, or stdout without --json) are a file
// format: trainers and scripts read them by field name. These goldens pin
// the names, their order and which are left out when empty, so a change
// of the Go types behind them cannot change a byte.
func TestResultJSONGolden(t *testing.T) {
	reward, score, low := 0.1, 0.5, 0.0

	// Every field set: a wrong answer judged on a variant, with --all-modes,
	// previews, a failure class and reward components.
	var full Result
	full.TaskID, full.Sample, full.SQL = "shop_007", 2, "SELECT name FROM customers WHERE city = 'Paris'"
	full.Outcome, full.Reward, full.Detail = sqlgym.OutcomeWrong, &reward, "2 rows, gold has 3"
	full.ErrorKind, full.Why, full.Score = sqlgym.ErrKindOther, "missing_rows", &score
	full.Modes = map[string]sqlgym.ModeVerdict{
		"multiset": {Outcome: sqlgym.OutcomeWrong, Reward: &reward, Why: "missing_rows"},
		"f1":       {Outcome: sqlgym.OutcomeWrong, Reward: &low, Score: &score},
	}
	full.Gold = "SELECT name FROM customers WHERE city = 'Paris' ORDER BY 1"
	full.PredPreview = &sqlgym.Preview{Columns: []string{"name"}, Rows: [][]string{{"Ann"}, {"NULL"}}}
	full.GoldPreview = &sqlgym.Preview{Columns: []string{"name"}, Rows: [][]string{{"Ann"}}, More: true}
	full.Failure = &failure.Failure{Class: failure.MissingRows, Detail: "1 gold row missing", Rows: failure.RelSubset}
	full.Components = sqlgym.Components{"outcome": 0.1, "rows": 0.66}
	full.Variant = "sqlite:/tmp/v/shop_v1.sqlite"
	full.Abandoned = true // never written

	// The least: a correct answer (empty detail, no kind, no previews).
	one := 1.0
	var bare Result
	bare.TaskID, bare.SQL, bare.Outcome, bare.Reward = "shop_001", "SELECT 1", sqlgym.OutcomeCorrect, &one

	// A truncated reply: reward null.
	var null Result
	null.TaskID, null.Sample, null.Outcome, null.Detail = "shop_002", 1, sqlgym.OutcomeTruncated, "cut at the token limit"

	checkGolden(t, "result.golden.jsonl", full, bare, null)
}

// checkGolden compares the JSON lines of vs, as verify's encoder writes
// them, with testdata/name.
func checkGolden(t *testing.T, name string, vs ...any) {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	for _, v := range vs {
		if err := enc.Encode(v); err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Join("testdata", name)
	if *updateGolden || os.Getenv("SQLGYM_UPDATE_GOLDEN") == "1" {
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -run %s -update to write it)", err, t.Name())
	}
	if !bytes.Equal(buf.Bytes(), want) {
		t.Errorf("JSON differs from %s (the file format changed):\n got %s\nwant %s", path, buf.Bytes(), want)
	}
}
