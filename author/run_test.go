package author

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"testing"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/author/goldfilter"
	"github.com/sqlgym/sqlgym/sqltext"
)

func runShop(t *testing.T, s *Setup, seed uint64, n, conc int) []sqlgym.Task {
	t.Helper()
	tasks, _, err := collect(t, context.Background(), Config{DB: "shop", Teacher: s.Teacher, Schema: s.Schema, Filter: s.Filter, N: n, Seed: seed, Concurrency: conc})
	if err != nil {
		t.Fatal(err)
	}
	if len(tasks) != n {
		t.Fatalf("%d tasks, want %d", len(tasks), n)
	}
	return tasks
}

func ids(ts []sqlgym.Task) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = t.ID + "|" + t.Question + "|" + t.SQL
	}
	return out
}

func TestSameSeedSameTasks(t *testing.T) {
	s := prepare(t, shopFile(t), ShopLexicon())
	a := runShop(t, s, 7, 200, 1)
	b := runShop(t, s, 7, 200, 8) // concurrency changes speed, never tasks
	if !slices.Equal(ids(a), ids(b)) {
		t.Fatal("the same seed gave different tasks")
	}
	// A fresh profile of a fresh copy gives the same tasks too.
	c := runShop(t, prepare(t, shopFile(t), ShopLexicon()), 7, 200, 3)
	if !slices.Equal(ids(a), ids(c)) {
		t.Fatal("the same seed on a fresh database gave different tasks")
	}
	d := runShop(t, s, 8, 200, 4)
	same := 0
	for _, x := range ids(d) {
		if slices.Contains(ids(a), x) {
			same++
		}
	}
	if same > 100 {
		t.Fatalf("seeds 7 and 8 share %d of 200 tasks", same)
	}
}

func TestResumeAfterCancel(t *testing.T) {
	s := prepare(t, shopFile(t), ShopLexicon())
	const n = 300
	full := runShop(t, s, 11, n, 4)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var first []sqlgym.Task
	_, _, err := collect(t, ctx, Config{DB: "shop", Teacher: s.Teacher, Schema: s.Schema, Filter: s.Filter, N: n, Seed: 11,
		Emit: func(tk sqlgym.Task) error {
			first = append(first, tk)
			if len(first) == 137 {
				cancel() // interrupted in the middle of a round
			}
			return nil
		}})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled run returned %v", err)
	}
	if len(first) < 137 || len(first) >= n {
		t.Fatalf("cancelled run kept %d tasks", len(first))
	}
	rest, cnt, err := collect(t, context.Background(), Config{DB: "shop", Teacher: s.Teacher, Schema: s.Schema, Filter: s.Filter, N: n, Seed: 11, Existing: first})
	if err != nil {
		t.Fatal(err)
	}
	all := append(slices.Clone(first), rest...)
	if len(all) != n || cnt.Total != n || cnt.Resumed != len(first) || cnt.Kept != len(rest) {
		t.Fatalf("resumed run ends with %d tasks (counts %+v), want %d", len(all), cnt, n)
	}
	seen := map[string]bool{}
	for _, tk := range all {
		k := sqltext.Normalize(tk.SQL)
		if seen[k] || seen[tk.ID] {
			t.Fatalf("duplicate task %s after resume", tk.ID)
		}
		seen[k], seen[tk.ID] = true, true
	}
	// Nothing lost, nothing new: the interrupted and resumed run is the
	// uninterrupted one.
	if !slices.Equal(ids(all), ids(full)) {
		t.Fatal("interrupted + resumed run differs from an uninterrupted run")
	}
}

// TestFilterDrops feeds hand-made candidates through Run and checks each
// lands where it should.
func TestFilterDrops(t *testing.T) {
	s := prepare(t, shopFile(t), ShopLexicon())
	ctx := context.Background()
	// A real tie at the LIMIT boundary: products sorted by price, the k-th
	// and (k+1)-th share a price (several products cost 19.99).
	rs, err := s.Filter.A.Query(ctx, "SELECT price FROM products ORDER BY price", sqlgym.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	k := 0
	for i := 1; i < len(rs.Rows); i++ {
		if reflect.DeepEqual(rs.Rows[i-1], rs.Rows[i]) {
			k = i
			break
		}
	}
	if k == 0 {
		t.Fatal("no tied prices in the shop data")
	}
	cands := []Candidate{
		{Question: "Error?", SQL: "SELECT nope FROM products", Complexity: LevelFilter},
		{Question: "Nothing?", SQL: "SELECT name FROM products WHERE price < 0", Complexity: LevelFilter},
		{Question: "All NULL?", SQL: "SELECT MAX(price) FROM products WHERE price < 0", Complexity: LevelAggregate},
		{Question: "Sixty?", SQL: "SELECT customer_id FROM customers WHERE customer_id <= 60", Complexity: LevelFilter},
		{Question: "Random?", SQL: "SELECT abs(random()) % 1000000000 AS r", Complexity: LevelFilter},
		{Question: "Tie?", SQL: fmt.Sprintf("SELECT name FROM products ORDER BY price LIMIT %d", k), Complexity: LevelOrderLimit,
			TieSQL: fmt.Sprintf("SELECT price FROM products ORDER BY price LIMIT %d", k+1), TieAt: k},
		{Question: "How many customers are from France?", SQL: "SELECT COUNT(*) FROM customers WHERE country = 'France'", Complexity: LevelFilter},
		{Question: "Count French customers.", SQL: "select   count(*)\nfrom CUSTOMERS where COUNTRY = 'France';", Complexity: LevelFilter},
		{Question: "how many customers are from  France", SQL: "SELECT COUNT(customer_id) FROM customers WHERE country = 'France'", Complexity: LevelFilter},
		{Question: "How many products are there?", SQL: "SELECT COUNT(*) FROM products", Complexity: LevelAggregate},
	}
	tasks, cnt, err := collect(t, ctx, Config{DB: "shop", Teacher: &listTeacher{cands: cands}, Schema: s.Schema, Filter: s.Filter, N: 5})
	if !errors.Is(err, ErrExhausted) {
		t.Fatalf("a teacher with nothing left should exhaust the run, got %v", err)
	}
	want := map[goldfilter.Reason]int{goldfilter.ReasonError: 1, goldfilter.ReasonTooFewRows: 2, goldfilter.ReasonTooManyRows: 1, goldfilter.ReasonUnstable: 1, goldfilter.ReasonTie: 1,
		goldfilter.ReasonDuplicateSQL: 1, goldfilter.ReasonDuplicateQuestion: 1}
	for r, n := range want {
		if cnt.Dropped[r] != n {
			t.Errorf("dropped %s: %d, want %d (all: %v)", r, cnt.Dropped[r], n, cnt.Dropped)
		}
	}
	if len(tasks) != 2 || tasks[0].Question != "How many customers are from France?" || tasks[1].Question != "How many products are there?" {
		t.Fatalf("kept %+v", tasks)
	}
	// Without the tie check the same gold passes: the tie is what drops it.
	tie := cands[5]
	tie.TieSQL = ""
	if v, err := s.Filter.Check(ctx, tie.gold()); err != nil || v.Reason != "" {
		t.Fatalf("tie candidate without its check: %+v %v", v, err)
	}
	// Limits are configurable.
	f := *s.Filter
	f.MaxRows = 60
	if v, _ := f.Check(ctx, cands[3].gold()); v.Reason != "" || v.Rows != 60 {
		t.Fatalf("60 rows with --max-rows 60: %+v", v)
	}
	f.MinRows = 2
	if v, _ := f.Check(ctx, cands[6].gold()); v.Reason != goldfilter.ReasonTooFewRows {
		t.Fatalf("one row with --min-rows 2: %+v", v)
	}
}

func TestRunStopsWhenTeacherRunsDry(t *testing.T) {
	s := prepare(t, shopFile(t), ShopLexicon())
	_, cnt, err := collect(t, context.Background(), Config{DB: "shop", Teacher: s.Teacher, Schema: s.Schema, Filter: s.Filter, N: 100000, Seed: 1, MaxProposals: 500})
	if !errors.Is(err, ErrExhausted) || cnt.Proposed < 500 || cnt.Proposed > 600 {
		t.Fatalf("err %v after %d proposals", err, cnt.Proposed)
	}
}
