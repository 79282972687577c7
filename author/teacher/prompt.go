package teacher

import (
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/author"
	"github.com/sqlgym/sqlgym/schema"
)

// levelHelp says what each complexity level asks for.
var levelHelp = map[string]string{
	author.LevelFilter:     "one table, rows selected by one or more WHERE conditions",
	author.LevelJoin:       "two or more tables joined along their foreign keys",
	author.LevelAggregate:  "COUNT, SUM, AVG, MIN or MAX over a set of rows, no GROUP BY",
	author.LevelGroupBy:    "GROUP BY, possibly with HAVING",
	author.LevelOrderLimit: "ORDER BY with LIMIT: top or bottom rows",
	author.LevelSubquery:   "a subquery or a CTE (WITH)",
	author.LevelDate:       "logic on dates or timestamps (ranges, years, months, durations)",
	author.LevelWindow:     "a window function (ROW_NUMBER, RANK, LAG, SUM ... OVER)",
}

const systemPrompt = `You write training tasks for text-to-SQL models: questions a person would ask about a database, each with the one SQL query that answers it. You reply with JSON only.`

// plan spreads n pairs over the levels, starting at a random level so
// that small batches still cover all of them over a run.
func plan(n int, levels []string, rng *rand.Rand) map[string]int {
	out := map[string]int{}
	start := rng.IntN(len(levels))
	for i := range n {
		out[levels[(start+i)%len(levels)]]++
	}
	return out
}

// userPrompt asks for n pairs with the given spread over levels. avoid
// lists questions already asked, so the model writes new ones.
func userPrompt(s *sqlgym.Schema, spread map[string]int, levels []string, avoid []string) string {
	var b strings.Builder
	n := 0
	for _, c := range spread {
		n += c
	}
	dialect := s.Dialect
	if dialect == "" {
		dialect = sqlgym.DialectSQLite
	}
	fmt.Fprintf(&b, "The database runs on %s. Its schema, with a few real values of each column:\n\n", dialect)
	b.WriteString(schema.Render(s, schema.Options{}))
	fmt.Fprintf(&b, "\nWrite %d new question/SQL pairs about this database:\n", n)
	for _, l := range levels {
		if spread[l] > 0 {
			fmt.Fprintf(&b, "- %d at complexity %q: %s\n", spread[l], l, levelHelp[l])
		}
	}
	b.WriteString(`
Rules:
- Each question must have exactly one right answer, and must say which columns to return.
- The SQL is one read-only SELECT (or WITH ... SELECT) statement in the ` + string(dialect) + ` dialect, using only the tables and columns above. It must return between 1 and 50 rows.
- Write values as they appear in the data (the sample values show how), and use them in questions.
- When you sort and cut with LIMIT, add a second sort key so that ties cannot change the answer.
- Do not ask about "today" or "now": the data is a snapshot.
`)
	if len(avoid) > 0 {
		b.WriteString("\nThese questions are already taken; do not repeat them:\n")
		for _, q := range avoid {
			b.WriteString("- " + q + "\n")
		}
	}
	b.WriteString(`
Reply with a JSON array and nothing else, each element an object:
[{"question": "...", "sql": "...", "complexity": "` + levels[0] + `"}, ...]
`)
	return b.String()
}
