package sqltext

import (
	"bufio"
	"encoding/json"
	"os"
	"testing"
)

// TestRemoveDistinctMatchesSqlparse replays what the real sqlparse (0.4.2)
// gave for Spider's DISTINCT removal on the public golds that hold DISTINCT
// or a semicolon and on hand-written tricky texts.
// testdata/gen_remove_distinct.py regenerates the file.
func TestRemoveDistinctMatchesSqlparse(t *testing.T) {
	f, err := os.Open("testdata/remove_distinct_sqlparse.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	n := 0
	for sc.Scan() {
		var c struct{ In, Out string }
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			t.Fatalf("line %d: %v", n+1, err)
		}
		n++
		if got := RemoveDistinct(c.In); got != c.Out {
			t.Errorf("RemoveDistinct(%q)\n got %q\nsqlparse %q", c.In, got, c.Out)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if n < 150 {
		t.Fatalf("only %d cases read", n)
	}
}
