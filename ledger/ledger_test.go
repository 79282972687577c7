package ledger

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/sqlgym/sqlgym/rundir"
)

func TestPathFor(t *testing.T) {
	for in, want := range map[string]string{
		"runs/qwen-base":  filepath.Join("runs", FileName),
		"runs/qwen-base/": filepath.Join("runs", FileName),
		"/a/b/runs/x":     "/a/b/runs/" + FileName,
		"x":               FileName,
	} {
		if got := PathFor(in); got != want {
			t.Errorf("PathFor(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestAppendKeepsEarlierBytesAndRoundTrips(t *testing.T) {
	path := filepath.Join(t.TempDir(), "runs", FileName)
	t0 := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	first := Entry{Time: t0, Kind: KindEval, Command: []string{"sqlgym", "eval", "--out", "runs/a"},
		GitCommit: "abc123", ConfigHash: "cfg", TasksHash: "th", Split: "holdout",
		Decoding: &rundir.Decoding{K: 4, Temperature: 0.7}, Output: "runs/a",
		Headline: map[string]float64{"pass@1": 0.4375, "pass@4": math.NaN()}}
	if err := Append(path, first); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(path)
	second := Entry{Kind: KindCompare, Command: []string{"sqlgym", "compare"},
		Inputs: map[string][]string{"base": {"runs/a"}, "treat": {"runs/b"}}, Verdict: "not proven"}
	if err := Append(path, second); err != nil {
		t.Fatal(err)
	}
	after, _ := os.ReadFile(path)
	if !bytes.HasPrefix(after, before) || bytes.Count(after, []byte("\n")) != 2 {
		t.Fatalf("append rewrote the ledger:\nbefore %s\nafter %s", before, after)
	}
	got, damaged, err := Read(path)
	if err != nil || damaged != 0 || len(got) != 2 {
		t.Fatalf("read: %d entries, %d damaged, %v", len(got), damaged, err)
	}
	if !got[0].Time.Equal(t0) || got[0].Decoding.K != 4 || got[0].Headline["pass@1"] != 0.4375 || got[0].Split != "holdout" {
		t.Fatalf("first entry %+v", got[0])
	}
	if _, ok := got[0].Headline["pass@4"]; ok {
		t.Fatalf("NaN headline kept: %v", got[0].Headline)
	}
	if got[1].Time.IsZero() || got[1].Inputs["treat"][0] != "runs/b" || got[1].Verdict != "not proven" {
		t.Fatalf("second entry %+v", got[1])
	}
}

func TestAppendAfterTornLineCutsItFirst(t *testing.T) {
	path := filepath.Join(t.TempDir(), FileName)
	if err := Append(path, Entry{Kind: KindEval, Output: "one"}); err != nil {
		t.Fatal(err)
	}
	whole, _ := os.ReadFile(path)
	f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"kind":"eval","outp`)
	f.Close()
	// Read before the repair sees the torn line as damage.
	if got, damaged, _ := Read(path); damaged != 1 || len(got) != 1 {
		t.Fatalf("before repair: %d entries, %d damaged", len(got), damaged)
	}
	if err := Append(path, Entry{Kind: KindEval, Output: "two"}); err != nil {
		t.Fatal(err)
	}
	after, _ := os.ReadFile(path)
	if !bytes.HasPrefix(after, whole) || bytes.Contains(after, []byte(`"outp{`)) {
		t.Fatalf("the torn line was glued to or changed the ledger:\n%s", after)
	}
	got, damaged, err := Read(path)
	if err != nil || damaged != 0 || len(got) != 2 || got[1].Output != "two" {
		t.Fatalf("got %+v damaged %d err %v", got, damaged, err)
	}
}

func TestDamagedMiddleLineIsSkippedAndKept(t *testing.T) {
	path := filepath.Join(t.TempDir(), FileName)
	os.WriteFile(path, []byte("{\"kind\":\"eval\",\"output\":\"a\"}\nnot json\n{\"kind\":\"eval\",\"output\":\"c\"}\n"), 0o644)
	if err := Append(path, Entry{Kind: KindEval, Output: "b"}); err != nil {
		t.Fatal(err)
	}
	got, damaged, err := Read(path)
	if err != nil || damaged != 1 || len(got) != 3 || got[2].Output != "b" {
		t.Fatalf("got %+v damaged %d err %v", got, damaged, err)
	}
}

func TestAppendNeedsKind(t *testing.T) {
	if err := Append(filepath.Join(t.TempDir(), FileName), Entry{}); err == nil {
		t.Fatal("an entry without a kind was written")
	}
}

func TestConcurrentAppendsDoNotInterleave(t *testing.T) {
	path := filepath.Join(t.TempDir(), FileName)
	var wg sync.WaitGroup
	for i := 0; i < 40; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := Append(path, Entry{Kind: KindEval, Output: fmt.Sprintf("run-%02d", i), Command: []string{string(bytes.Repeat([]byte("x"), 3000))}}); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	got, damaged, err := Read(path)
	if err != nil || damaged != 0 || len(got) != 40 {
		t.Fatalf("%d entries, %d damaged, %v", len(got), damaged, err)
	}
	seen := map[string]bool{}
	for _, e := range got {
		seen[e.Output] = true
	}
	if len(seen) != 40 {
		t.Fatalf("%d distinct entries of 40", len(seen))
	}
}

func TestReadMissingIsEmpty(t *testing.T) {
	got, damaged, err := Read(filepath.Join(t.TempDir(), "nope.jsonl"))
	if err != nil || damaged != 0 || len(got) != 0 {
		t.Fatalf("%v %d %v", got, damaged, err)
	}
}
