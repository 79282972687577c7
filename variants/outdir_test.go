package variants

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/verify/compare"
)

// Every database is in exactly one shard, whatever the order of the
// names, and the shards' sizes differ by one at most.
func TestShardsPartitionTheDatabases(t *testing.T) {
	var names []string
	for i := range 69 { // BIRD train's count
		names = append(names, fmt.Sprintf("db%02d", (i*37)%69))
	}
	for n := 1; n <= 8; n++ {
		seen := map[string]int{}
		sizes := map[int]bool{}
		for i := range n {
			sh, err := ParseShard(fmt.Sprintf("%d/%d", i, n))
			if err != nil {
				t.Fatal(err)
			}
			got := sh.Pick(names)
			rev := slices.Clone(names)
			slices.Reverse(rev)
			rev = sh.Pick(rev)
			if !slices.Equal(got, rev) {
				t.Errorf("shard %d/%d depends on the order of the names: %v, %v", i, n, got, rev)
			}
			sizes[len(got)] = true
			for _, g := range got {
				seen[g]++
			}
		}
		if len(seen) != len(names) {
			t.Errorf("n=%d: %d of %d databases in a shard", n, len(seen), len(names))
		}
		for name, c := range seen {
			if c != 1 {
				t.Errorf("n=%d: %s in %d shards", n, name, c)
			}
		}
		if len(sizes) > 2 {
			t.Errorf("n=%d: shard sizes %v", n, sizes)
		}
	}
	for _, bad := range []string{"", "1", "2/2", "-1/2", "0/0", "a/b", "1/2/3", "01/2"} {
		if _, err := ParseShard(bad); err == nil {
			t.Errorf("--shard %q accepted", bad)
		}
	}
}

// A kept variant that is the first to kill no mutant is dropped and the
// later ones are renamed in order, their kills following them.
func TestIdleVariantsAreNotKept(t *testing.T) {
	cands := []*candidate{{index: 0}, {index: 1}, {index: 2}}
	res := &DBResult{Variants: []Kept{{Name: "db_v1"}, {Name: "db_v2"}, {Name: "db_v3"}}}
	killedBy := map[string]string{"a": "db_v1", "b": "db_v3", "c": "db_v3"}
	kept := dropIdle(cands, res, killedBy)
	if len(kept) != 2 || kept[0].index != 0 || kept[1].index != 2 {
		t.Fatalf("kept candidates %v", kept)
	}
	if res.Variants[0].Name != "db_v1" || res.Variants[1].Name != "db_v2" || len(res.Variants) != 2 {
		t.Errorf("variants %+v", res.Variants)
	}
	if killedBy["a"] != "db_v1" || killedBy["b"] != "db_v2" || killedBy["c"] != "db_v2" {
		t.Errorf("kills %v", killedBy)
	}
}

// The report names the tasks still weak, the cost of judging and the
// next command.
func TestReportListsStillWeakCostAndNext(t *testing.T) {
	dbs := []*DBResult{
		{Name: "b", StillWeak: []string{"b1"}, Cost: JudgeCost{OriginalSeconds: 2, VariantSeconds: 1, Answers: 512, Rounds: 2}},
		{Name: "a", StillWeak: []string{"a1", "a2"}, Cost: JudgeCost{OriginalSeconds: 2, VariantSeconds: 3, Answers: 512, Rounds: 2}},
	}
	r := Summarize(compare.Multiset, 1, 5, dbs, nil)
	r.Next = "sqlgym verify --variants"
	var text, md bytes.Buffer
	if err := r.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	if err := r.WriteMarkdown(&md); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"still weak in a (2): a1, a2", "still weak in b (1): b1", "(2.00x;", "next: sqlgym verify --variants"} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("text report lacks %q:\n%s", want, text.String())
		}
	}
	for _, want := range []string{"- still weak in a (2): a1, a2", "4.00s on the originals and 8.00s", "Next: `sqlgym verify --variants`"} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("markdown report lacks %q:\n%s", want, md.String())
		}
	}
}

// The run key changes with every setting and task that changes the
// variants, and with the database's digest.
func TestRunKeyCoversSettingsDataAndTasks(t *testing.T) {
	tasks := []sqlgym.Task{{ID: "a", DB: "d", SQL: "SELECT 1"}}
	base, err := RunKey(Options{}, "d", "x", tasks)
	if err != nil {
		t.Fatal(err)
	}
	other := []struct {
		name string
		opt  Options
		db   string
		ts   []sqlgym.Task
	}{
		{"seed", Options{Seed: 2}, "x", tasks},
		{"max variants", Options{MaxVariants: 2}, "x", tasks},
		{"declared only", Options{DeclaredOnly: true}, "x", tasks},
		{"unseen values", Options{UnseenValues: true}, "x", tasks},
		{"mode", Options{Mode: compare.Bird}, "x", tasks},
		{"database", Options{}, "y", tasks},
		{"gold", Options{}, "x", []sqlgym.Task{{ID: "a", DB: "d", SQL: "SELECT 2"}}},
	}
	for _, o := range other {
		k, err := RunKey(o.opt, "d", o.db, o.ts)
		if err != nil {
			t.Fatal(err)
		}
		if k == base {
			t.Errorf("%s: same key", o.name)
		}
	}
	if k, _ := RunKey(Options{Seed: 0, MaxVariants: 5}, "d", "x", tasks); k != base {
		t.Error("the defaults spelt out give another key")
	}
}
