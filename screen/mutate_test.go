package screen

import (
	"slices"
	"testing"
)

// of returns the SQL of the mutants of one kind, with their effects.
func of(sql string, k Kind) ([]string, []Effect) {
	var out []string
	var eff []Effect
	for _, m := range Mutate(sql, 0) {
		if m.Kind == k {
			out = append(out, m.SQL)
			eff = append(eff, m.Effect)
		}
	}
	return out, eff
}

func TestMutateKinds(t *testing.T) {
	cases := []struct {
		name string
		kind Kind
		sql  string
		want []string
	}{
		{"drop each conjunct", DropConjunct,
			"SELECT a FROM t WHERE x = 1 AND y > 2 AND z < 3 ORDER BY a",
			[]string{
				"SELECT a FROM t WHERE y > 2 AND z < 3 ORDER BY a",
				"SELECT a FROM t WHERE x = 1 AND z < 3 ORDER BY a",
				"SELECT a FROM t WHERE x = 1 AND y > 2 ORDER BY a",
			}},
		{"a single condition drops the WHERE", DropConjunct,
			"SELECT a FROM t WHERE x = 1 GROUP BY a",
			[]string{"SELECT a FROM t GROUP BY a"}},
		{"BETWEEN's AND is no conjunct", DropConjunct,
			"SELECT a FROM t WHERE x BETWEEN 1 AND 5 AND y = 'AND'",
			[]string{"SELECT a FROM t WHERE y = 'AND'", "SELECT a FROM t WHERE x BETWEEN 1 AND 5"}},
		{"a top-level OR is one condition", DropConjunct,
			"SELECT a FROM t WHERE x = 1 AND y = 2 OR z = 3",
			[]string{"SELECT a FROM t"}},
		{"nested AND and CASE stay whole", DropConjunct,
			"SELECT a FROM t WHERE (x = 1 AND y = 2) AND CASE WHEN p AND q THEN 1 END = 1",
			[]string{"SELECT a FROM t WHERE CASE WHEN p AND q THEN 1 END = 1", "SELECT a FROM t WHERE (x = 1 AND y = 2)"}},
		{"a NULL guard stays", DropConjunct,
			"SELECT a FROM t WHERE t.x IS NOT NULL AND y = 1 AND \"z\" IS NOT NULL",
			[]string{"SELECT a FROM t WHERE t.x IS NOT NULL AND \"z\" IS NOT NULL"}},
		{"a lone NULL guard stays", DropConjunct, "SELECT a FROM t WHERE x IS NOT NULL ORDER BY x LIMIT 3", nil},
		{"subquery WHERE", DropConjunct,
			"SELECT a FROM t WHERE a IN (SELECT b FROM u WHERE c = 1)",
			[]string{"SELECT a FROM t", "SELECT a FROM t WHERE a IN (SELECT b FROM u)"}},

		{"comparisons flip", FlipComparison,
			"SELECT a FROM t WHERE x < 1 AND y >= 2 AND z = 'a' AND w <> 3 AND v != 4",
			[]string{
				"SELECT a FROM t WHERE x <= 1 AND y >= 2 AND z = 'a' AND w <> 3 AND v != 4",
				"SELECT a FROM t WHERE x < 1 AND y > 2 AND z = 'a' AND w <> 3 AND v != 4",
				"SELECT a FROM t WHERE x < 1 AND y >= 2 AND z <> 'a' AND w <> 3 AND v != 4",
				"SELECT a FROM t WHERE x < 1 AND y >= 2 AND z = 'a' AND w = 3 AND v != 4",
				"SELECT a FROM t WHERE x < 1 AND y >= 2 AND z = 'a' AND w <> 3 AND v = 4",
			}},
		{"join equality stays, strings untouched", FlipComparison,
			"SELECT a FROM t JOIN u ON (t.id = u.id AND u.n > 2) WHERE t.s = '<'",
			[]string{"SELECT a FROM t JOIN u ON (t.id = u.id AND u.n >= 2) WHERE t.s = '<'",
				"SELECT a FROM t JOIN u ON (t.id = u.id AND u.n > 2) WHERE t.s <> '<'"}},

		{"the first sort key flips", FlipOrder,
			"SELECT a FROM t ORDER BY a DESC, b, c ASC NULLS LAST LIMIT 3",
			[]string{"SELECT a FROM t ORDER BY a ASC, b, c ASC NULLS LAST LIMIT 3"}},
		{"NULLS LAST stays after the direction", FlipOrder,
			"SELECT a FROM t ORDER BY f(a, b) NULLS LAST, c LIMIT 3",
			[]string{"SELECT a FROM t ORDER BY f(a, b) DESC NULLS LAST, c LIMIT 3"}},
		{"window order", FlipOrder,
			"SELECT RANK() OVER (PARTITION BY g ORDER BY x) FROM t",
			[]string{"SELECT RANK() OVER (PARTITION BY g ORDER BY x DESC) FROM t"}},
		{"unlimited subquery order means nothing", FlipOrder,
			"SELECT a FROM (SELECT a FROM t ORDER BY a) AS s",
			nil},
		{"limited subquery order counts", FlipOrder,
			"SELECT a FROM (SELECT a FROM t ORDER BY a LIMIT 2) AS s",
			[]string{"SELECT a FROM (SELECT a FROM t ORDER BY a DESC LIMIT 2) AS s"}},

		{"drop DISTINCT", DropDistinct,
			"SELECT DISTINCT a FROM t WHERE a IN (SELECT DISTINCT b FROM u) AND c = (SELECT COUNT(*) FROM (SELECT DISTINCT d FROM v) AS x)",
			[]string{
				"SELECT a FROM t WHERE a IN (SELECT DISTINCT b FROM u) AND c = (SELECT COUNT(*) FROM (SELECT DISTINCT d FROM v) AS x)",
				"SELECT DISTINCT a FROM t WHERE a IN (SELECT DISTINCT b FROM u) AND c = (SELECT COUNT(*) FROM (SELECT d FROM v) AS x)",
			}},
		{"add DISTINCT when a group key is not shown", AddDistinct,
			"SELECT COUNT(*) AS n FROM t GROUP BY g", []string{"SELECT DISTINCT COUNT(*) AS n FROM t GROUP BY g"}},
		{"no DISTINCT when every group key is shown", AddDistinct,
			"SELECT t.g, h AS hh, COUNT(*) FROM t GROUP BY g, hh", nil},
		{"positional group keys are shown", AddDistinct, "SELECT g, COUNT(*) FROM t GROUP BY 1", nil},
		{"no DISTINCT on an ungrouped list", AddDistinct, "SELECT a FROM t", nil},
		{"no DISTINCT on a set operation", AddDistinct, "SELECT COUNT(*) FROM t GROUP BY g UNION ALL SELECT 1", nil},
		{"CTE body is not the outer SELECT", AddDistinct,
			"WITH c AS (SELECT a, g FROM t) SELECT MAX(a) FROM c GROUP BY g",
			[]string{"WITH c AS (SELECT a, g FROM t) SELECT DISTINCT MAX(a) FROM c GROUP BY g"}},

		{"COUNT both ways", CountDistinct,
			"SELECT COUNT(x), count(DISTINCT y), COUNT(*) FROM t",
			[]string{"SELECT COUNT(DISTINCT x), count(DISTINCT y), COUNT(*) FROM t", "SELECT COUNT(x), count(y), COUNT(*) FROM t"}},

		{"LIMIT up and down", LimitOffByOne, "SELECT a FROM t ORDER BY a LIMIT 5",
			[]string{"SELECT a FROM t ORDER BY a LIMIT 6", "SELECT a FROM t ORDER BY a LIMIT 4"}},
		{"LIMIT 1 only up", LimitOffByOne, "SELECT a FROM t ORDER BY a LIMIT 1", []string{"SELECT a FROM t ORDER BY a LIMIT 2"}},

		{"join types", JoinType,
			"SELECT a FROM t JOIN u ON t.i = u.i INNER JOIN v ON v.i = u.i LEFT OUTER JOIN w ON w.i = v.i left join x ON x.i = w.i CROSS JOIN y",
			[]string{ // not u: v's inner join on u.i would drop the rows LEFT adds
				"SELECT a FROM t JOIN u ON t.i = u.i LEFT JOIN v ON v.i = u.i LEFT OUTER JOIN w ON w.i = v.i left join x ON x.i = w.i CROSS JOIN y",
				"SELECT a FROM t JOIN u ON t.i = u.i INNER JOIN v ON v.i = u.i JOIN w ON w.i = v.i left join x ON x.i = w.i CROSS JOIN y",
				"SELECT a FROM t JOIN u ON t.i = u.i INNER JOIN v ON v.i = u.i LEFT OUTER JOIN w ON w.i = v.i join x ON x.i = w.i CROSS JOIN y",
			}},

		{"a WHERE on the joined table makes LEFT the same query", JoinType,
			"SELECT COUNT(*) FROM orders o JOIN customers AS c ON o.cid = c.id JOIN items ON items.oid = o.id " +
				"JOIN main.tags ON tags.oid = o.id WHERE c.country = 'France' AND o.x LIKE 'a%' AND tags.t IS NOT NULL",
			[]string{"SELECT COUNT(*) FROM orders o JOIN customers AS c ON o.cid = c.id LEFT JOIN items ON items.oid = o.id " +
				"JOIN main.tags ON tags.oid = o.id WHERE c.country = 'France' AND o.x LIKE 'a%' AND tags.t IS NOT NULL"}},
		{"but not one that keeps NULLs, or under an OR", JoinType,
			"SELECT a FROM t JOIN u ON t.i = u.i JOIN v ON v.i = t.i WHERE u.x IS NULL OR v.y = 1",
			[]string{"SELECT a FROM t LEFT JOIN u ON t.i = u.i JOIN v ON v.i = t.i WHERE u.x IS NULL OR v.y = 1",
				"SELECT a FROM t JOIN u ON t.i = u.i LEFT JOIN v ON v.i = t.i WHERE u.x IS NULL OR v.y = 1"}},
		{"a later inner join on the joined table makes LEFT the same query", JoinType,
			"SELECT COUNT(*) FROM s JOIN o ON s.oid = o.id JOIN c ON o.cid = c.id LEFT JOIN p ON p.id = s.pid",
			[]string{"SELECT COUNT(*) FROM s JOIN o ON s.oid = o.id LEFT JOIN c ON o.cid = c.id LEFT JOIN p ON p.id = s.pid",
				"SELECT COUNT(*) FROM s JOIN o ON s.oid = o.id JOIN c ON o.cid = c.id JOIN p ON p.id = s.pid"}},
		{"aggregates swap", SwapAggregate,
			"SELECT sum(x), AVG(y), MIN(z), MAX(w), t.max FROM t",
			[]string{
				"SELECT avg(x), AVG(y), MIN(z), MAX(w), t.max FROM t",
				"SELECT sum(x), SUM(y), MIN(z), MAX(w), t.max FROM t",
				"SELECT sum(x), AVG(y), MAX(z), MAX(w), t.max FROM t",
				"SELECT sum(x), AVG(y), MIN(z), MIN(w), t.max FROM t",
			}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, _ := of(c.sql, c.kind)
			if !slices.Equal(got, c.want) {
				t.Errorf("%s mutants of\n  %s\ngot:\n  %q\nwant:\n  %q", c.kind, c.sql, got, c.want)
			}
		})
	}
}

func TestMutateEffects(t *testing.T) {
	_, eff := of("SELECT a FROM t ORDER BY a", FlipOrder)
	if !slices.Equal(eff, []Effect{EffectOrder}) {
		t.Errorf("top-level unlimited sort: effects %v, want order only", eff)
	}
	_, eff = of("SELECT a FROM t ORDER BY a LIMIT 3", FlipOrder)
	if !slices.Equal(eff, []Effect{EffectRows}) {
		t.Errorf("limited sort: effects %v, want rows", eff)
	}
	for _, m := range Mutate("SELECT DISTINCT a FROM t", 0) {
		if m.Kind == DropDistinct && (m.Effect != EffectDuplicates || !m.Distinct) {
			t.Errorf("outer DISTINCT dropped: %+v, want duplicates-only and Distinct", m)
		}
	}
	for _, m := range Mutate("SELECT COUNT(x) FROM t", 0) {
		if m.Kind == CountDistinct && (m.Effect != EffectRows || !m.Distinct) {
			t.Errorf("COUNT(DISTINCT): %+v, want rows and Distinct", m)
		}
	}
}

func TestMutateSkipsSameAndMulti(t *testing.T) {
	// Upper or lower case, the same mutant appears once, and never the
	// gold itself.
	ms := Mutate("SELECT a FROM t WHERE x = 1 AND x = 1", 0)
	n := 0
	for _, m := range ms {
		if m.Kind == DropConjunct {
			n++
		}
	}
	if n != 1 {
		t.Errorf("dropping either of two equal conjuncts gives one mutant, got %d", n)
	}
	if ms := Mutate("SELECT 1; SELECT 2", 0); ms != nil {
		t.Errorf("two statements gave mutants: %v", ms)
	}
	if ms := Mutate("SELECT 1", 0); len(ms) != 0 {
		t.Errorf("SELECT 1 has nothing to mutate, got %v", ms)
	}
	long := "SELECT a FROM t WHERE a = 1 AND b = 2 AND c = 3 AND d = 4 AND e = 5 AND f = 6 AND g = 7 AND h = 8 AND i = 9 AND j = 10"
	n = 0
	for _, m := range Mutate(long, 3) {
		if m.Kind == DropConjunct {
			n++
		}
	}
	if n != 3 {
		t.Errorf("maxPerKind 3 gave %d drop_conjunct mutants", n)
	}
}

// Mutate returns the near-miss mutants of sql, at most maxPerKind of each
// kind (DefaultMaxPerKind when 0), in kind order and then in text order.
// Mutants that normalise to the gold or to an earlier mutant are left out.
// A text holding more than one statement gets none. The kinds that need the
// schema make none: see MutateSchema.
func Mutate(sql string, maxPerKind int) []Mutant { return MutateSchema(sql, maxPerKind, nil) }
