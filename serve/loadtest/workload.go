package loadtest

import (
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/serve"
)

// batch builds one trainer batch: tasks x samples answers to the tasks
// starting at offset. Each task's answers are drawn from a few variants
// with the weights a policy's samples show (the gold most often, some
// respellings, some wrong or broken queries), so a batch holds about five
// distinct statements per task. marker, when non-empty, makes every
// statement new to the server (a cold batch) without changing its result.
func batch(rng *rand.Rand, tasks []sqlgym.Task, offset, nTasks, samples int, marker string) []serve.Item {
	items := make([]serve.Item, 0, nTasks*samples)
	for i := 0; i < nTasks; i++ {
		t := tasks[(offset+i)%len(tasks)]
		g := t.SQL
		variants := []string{
			g,
			strings.ToLower(g),
			"SELECT * FROM (" + g + ") AS sub LIMIT 1",
			"SELECT count(*) FROM (" + g + ") AS sub",
			strings.Replace(g, "SELECT", "SELECT DISTINCT", 1),
			"SELECT * FROM no_such_table",
		}
		weights := []int{8, 3, 2, 1, 1, 1}
		for s := 0; s < samples; s++ {
			r := rng.IntN(16)
			k := 0
			for r >= weights[k] {
				r -= weights[k]
				k++
			}
			sql := mark(variants[k], marker)
			c := fmt.Sprintf("The question asks about the shop's data; I will query it.\n\n```sql\n%s\n```", sql)
			it := serve.Item{TaskID: t.ID, Completion: &c}
			if rng.IntN(32) == 0 {
				// A reply cut off by the token limit.
				cut := c[:len(c)/2]
				it.Completion, it.FinishReason = &cut, "length"
			}
			items = append(items, it)
		}
	}
	return items
}

// mark prefixes a statement with an unused common table expression named
// after the batch: the normalised text, hence the cache key, is new while
// the rows are the same.
func mark(sql, marker string) string {
	if marker == "" {
		return sql
	}
	cte := marker + " AS (SELECT 1)"
	trimmed := strings.TrimSpace(sql)
	if len(trimmed) >= 5 && strings.EqualFold(trimmed[:5], "WITH ") {
		return "WITH " + cte + ", " + trimmed[5:]
	}
	return "WITH " + cte + " " + trimmed
}
