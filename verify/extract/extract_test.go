package extract

import "testing"

type extractCase struct {
	name, reply, finish string
	sql                 string
	status              Status
	method              string
}

func runCases(t *testing.T, cases []extractCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := FromCompletion(c.reply, c.finish)
			want := Result{SQL: c.sql, Status: c.status, Method: c.method}
			if want.Status == "" {
				want.Status = StatusOK
			}
			if got != want {
				t.Errorf("FromCompletion(%q, %q)\n got %+v\nwant %+v", c.reply, c.finish, got, want)
			}
		})
	}
}

func TestFromCompletionFences(t *testing.T) {
	runCases(t, []extractCase{
		{name: "qwen3 thinking reply",
			reply: "<think>\nThe user wants singers older than 30. I could write ```sql\nSELECT * FROM singer\n``` but only names are needed.\n</think>\n\n```sql\nSELECT name FROM singer WHERE age > 30;\n```",
			sql:   "SELECT name FROM singer WHERE age > 30", method: MethodFenceSQL},
		{name: "template put <think> in the prompt",
			reply: "Okay, let me look at the schema. ```sql\nSELECT 1\n```\n</think>\n\n```sql\nSELECT count(*) FROM singer\n```",
			sql:   "SELECT count(*) FROM singer", method: MethodFenceSQL},
		{name: "several fences, the last is the answer",
			reply: "First attempt:\n```sql\nSELECT name FROM singer\n```\nThat misses the filter. Corrected:\n```sql\nSELECT name FROM singer WHERE country = 'France'\n```\n",
			sql:   "SELECT name FROM singer WHERE country = 'France'", method: MethodFenceSQL},
		{name: "explanation after the fence",
			reply: "Here is the query:\n\n```sql\n-- count concerts per stadium\nSELECT s.name, COUNT(*)\nFROM stadium AS s JOIN concert AS c ON s.stadium_id = c.stadium_id\nGROUP BY s.name;\n```\n\n**Explanation:** the join pairs each concert with its stadium, and `GROUP BY` counts them.",
			sql:   "SELECT s.name, COUNT(*)\nFROM stadium AS s JOIN concert AS c ON s.stadium_id = c.stadium_id\nGROUP BY s.name", method: MethodFenceSQL},
		{name: "upper-case and dialect tags",
			reply: "```SQL\nSELECT 1 FROM a\n```\n```sqlite\nSELECT 2 FROM b\n```",
			sql:   "SELECT 2 FROM b", method: MethodFenceSQL},
		{name: "postgresql tag wins over a later untagged fence",
			reply: "```postgresql\nSELECT a::int FROM t\n```\nOutput:\n```\nSELECT 1\n```",
			sql:   "SELECT a::int FROM t", method: MethodFenceSQL},
		{name: "duckdb tag with info after it",
			reply: "```duckdb title=\"q.sql\"\nSELECT [1, 2] AS l\n```",
			sql:   "SELECT [1, 2] AS l", method: MethodFenceSQL},
		{name: "untagged fence that looks like SQL",
			reply: "Try this:\n```\nWITH x AS (SELECT 1 AS a) SELECT a FROM x\n```",
			sql:   "WITH x AS (SELECT 1 AS a) SELECT a FROM x", method: MethodFence},
		{name: "other-language fences are skipped unless they look like SQL",
			reply: "```python\ncur.execute(\"SELECT 1\")\n```\n```text\nselect name from singer\n```",
			sql:   "select name from singer", method: MethodFence},
		{name: "empty sql fence falls back to an earlier one",
			reply: "```sql\nSELECT a FROM t\n```\nand\n```sql\n-- nothing more\n```",
			sql:   "SELECT a FROM t", method: MethodFenceSQL},
		{name: "unterminated fence runs to the end",
			reply: "```sql\nSELECT name\nFROM singer\nORDER BY age",
			sql:   "SELECT name\nFROM singer\nORDER BY age", method: MethodFenceSQL},
		{name: "closing fence glued to the code",
			reply: "```sql\nSELECT name FROM singer;```\nDone.",
			sql:   "SELECT name FROM singer", method: MethodFenceSQL},
		{name: "one-line fence",
			reply: "Answer: ```sql SELECT name FROM singer```",
			sql:   "SELECT name FROM singer", method: MethodFenceSQL},
		{name: "indented fence in a list",
			reply: "1. Query:\n   ```sql\n   SELECT a FROM t\n   ```\n2. Done.",
			sql:   "SELECT a FROM t", method: MethodFenceSQL},
		{name: "semicolon in a string stays",
			reply: "```sql\nSELECT a FROM t WHERE b = 'x;y';;\n```",
			sql:   "SELECT a FROM t WHERE b = 'x;y'", method: MethodFenceSQL},
		{name: "two statements are kept for the verifier to refuse",
			reply: "```sql\nSELECT 1 FROM a;\nSELECT 2 FROM b;\n```",
			sql:   "SELECT 1 FROM a;\nSELECT 2 FROM b", method: MethodFenceSQL},
		{name: "fence only inside think",
			reply:  "<think>\n```sql\nSELECT name FROM singer\n```\n</think>\nI am not sure which table holds this.",
			status: StatusNoQuery},
		{name: "unclosed think at the start",
			reply:  "<think>\nLet me write ```sql\nSELECT 1 FROM t\n``` and check it",
			status: StatusNoQuery},
		{name: "THINK tags in capitals and <thinking>",
			reply: "<THINK>```sql\nSELECT 1 FROM t\n```</THINK><thinking>SELECT 2 FROM u</thinking>\n```sql\nSELECT 3 FROM v\n```",
			sql:   "SELECT 3 FROM v", method: MethodFenceSQL},
		{name: "removing think cannot join a tag",
			reply:  "<thi<think>x</think>nk>```sql\nSELECT 1 FROM t\n```",
			status: StatusNoQuery},
	})
}

func TestFromCompletionTruncated(t *testing.T) {
	runCases(t, []extractCase{
		{name: "length with a complete fence",
			reply: "```sql\nSELECT name FROM singer\n```", finish: "length", status: StatusTruncated},
		{name: "length with a partial fence",
			reply: "<think>long reasoning", finish: "length", status: StatusTruncated},
		{name: "anthropic max_tokens",
			reply: "```sql\nSELECT 1 FROM t", finish: "max_tokens", status: StatusTruncated},
		{name: "stop is not truncated",
			reply: "```sql\nSELECT 1 FROM t", finish: "stop", sql: "SELECT 1 FROM t", method: MethodFenceSQL},
	})
}

func TestFromCompletionTags(t *testing.T) {
	runCases(t, []extractCase{
		{name: "answer tag",
			reply: "Reasoning here.\n<answer>\nSELECT name FROM singer\n</answer>",
			sql:   "SELECT name FROM singer", method: MethodTagAnswer},
		{name: "sql tag in capitals",
			reply: "<SQL>SELECT count(*) FROM t;</SQL>",
			sql:   "SELECT count(*) FROM t", method: MethodTagSQL},
		{name: "last tag wins",
			reply: "<sql>SELECT 1 FROM a</sql> then <solution>SELECT 2 FROM b</solution>",
			sql:   "SELECT 2 FROM b", method: MethodTagSolution},
		{name: "fenced content inside a tag is found as a fence",
			reply: "<answer>```sql SELECT a FROM t```</answer>",
			sql:   "SELECT a FROM t", method: MethodFenceSQL},
		{name: "inline code inside a tag",
			reply: "<answer>`SELECT a FROM t`</answer>",
			sql:   "SELECT a FROM t", method: MethodTagAnswer},
		{name: "unclosed answer tag stopped by the server",
			reply: "<think>ok</think>\n<answer>\nSELECT a FROM t\n",
			sql:   "SELECT a FROM t", method: MethodTagAnswer},
		{name: "prose answer is no query",
			reply:  "<answer>There are 6 singers.</answer>",
			status: StatusNoQuery},
		{name: "sql tag nested in answer",
			reply: "<answer><sql>SELECT a FROM t</sql></answer>",
			sql:   "SELECT a FROM t", method: MethodTagSQL},
		{name: "prose answer after a sql tag",
			reply: "<sql>SELECT a FROM t</sql>\n<answer>6</answer>",
			sql:   "SELECT a FROM t", method: MethodTagSQL},
		{name: "a fence beats a tag",
			reply: "<answer>SELECT 1 FROM a</answer>\n```sql\nSELECT 2 FROM b\n```",
			sql:   "SELECT 2 FROM b", method: MethodFenceSQL},
		{name: "stray backticks in a tag",
			reply: "<sql>SELECT a FROM t ```</sql>",
			sql:   "SELECT a FROM t", method: MethodTagSQL},
	})
}

func TestFromCompletionBare(t *testing.T) {
	runCases(t, []extractCase{
		{name: "the reply is a statement",
			reply: "SELECT name FROM singer WHERE age > 30;",
			sql:   "SELECT name FROM singer WHERE age > 30", method: MethodBare},
		{name: "the reply is a statement without FROM",
			reply: "  select 1 + 1  ",
			sql:   "select 1 + 1", method: MethodBare},
		{name: "prose then a statement",
			reply: "To answer this we count the singers.\n\nSELECT count(*)\nFROM singer",
			sql:   "SELECT count(*)\nFROM singer", method: MethodBare},
		{name: "statement then explanation",
			reply: "SELECT name FROM singer ORDER BY age DESC LIMIT 1;\n\nThis returns the oldest singer.",
			sql:   "SELECT name FROM singer ORDER BY age DESC LIMIT 1", method: MethodBare},
		{name: "statement then a prose line with no blank line",
			reply: "SELECT name\nFROM singer\nThis query lists every singer.",
			sql:   "SELECT name\nFROM singer", method: MethodBare},
		{name: "after a colon",
			reply: "The query is: SELECT name FROM singer",
			sql:   "SELECT name FROM singer", method: MethodBare},
		{name: "inline code",
			reply: "You can use `SELECT name FROM singer` for this.",
			sql:   "SELECT name FROM singer", method: MethodBare},
		{name: "indented subquery stays in its statement",
			reply: "SELECT name FROM singer\nWHERE age > (\n    SELECT avg(age) FROM singer\n)",
			sql:   "SELECT name FROM singer\nWHERE age > (\n    SELECT avg(age) FROM singer\n)", method: MethodBare},
		{name: "blank line inside a CTE query",
			reply: "WITH s AS (\n  SELECT * FROM singer\n)\n\nSELECT name FROM s",
			sql:   "WITH s AS (\n  SELECT * FROM singer\n)\n\nSELECT name FROM s", method: MethodBare},
		{name: "last of two statements",
			reply: "First try:\nSELECT a FROM t;\nBetter:\nSELECT b FROM t WHERE c = 1;",
			sql:   "SELECT b FROM t WHERE c = 1", method: MethodBare},
		{name: "a new line starting SELECT ends a statement",
			reply: "select the rows we need\nSELECT a FROM t",
			sql:   "SELECT a FROM t", method: MethodBare},
		{name: "a compound spans lines",
			reply: "SELECT a FROM t\nUNION\nSELECT b FROM u",
			sql:   "SELECT a FROM t\nUNION\nSELECT b FROM u", method: MethodBare},
		{name: "a table on its own line is not prose",
			reply: "SELECT name\nFROM\n  Singer s\nWHERE s.age > 30",
			sql:   "SELECT name\nFROM\n  Singer s\nWHERE s.age > 30", method: MethodBare},
		{name: "prose with select in words",
			reply:  "I will select the best singers from the table and sort them.",
			status: StatusNoQuery},
		{name: "sentence-case Select starts no statement",
			reply:  "Select the name column from singer, then filter.",
			status: StatusNoQuery},
		{name: "selection and with in prose",
			reply:  "The selection was made with care.\nwith that in mind, nothing else.",
			status: StatusNoQuery},
		{name: "lower-case select in prose without FROM",
			reply:  "We need to\nselect the oldest singer.",
			status: StatusNoQuery},
		{name: "apostrophes in prose before the statement",
			reply: "I don't know the schema, but here's a guess:\nSELECT name FROM singer",
			sql:   "SELECT name FROM singer", method: MethodBare},
		{name: "python fence is masked",
			reply:  "```python\nq = \"\"\"\nSELECT a FROM t\n\"\"\"\n```",
			status: StatusNoQuery},
		{name: "nothing",
			reply: "", status: StatusNoQuery},
		{name: "only reasoning",
			reply: "<think>SELECT a FROM t</think>", status: StatusNoQuery},
	})
}
