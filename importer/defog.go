package importer

import (
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/sqlgym/sqlgym"
)

// importDefog reads defog's sql-eval questions: its CSV (db_name, query,
// question, query_category, instructions, ...) whose golds may hold
// {a, b} alternatives, or the shared JSONL layout, whose alternatives are
// already expanded.
func importDefog(src string, rep *Report) ([]sqlgym.Task, error) {
	path, err := questionFile(src, "questions_gen_sqlite.csv", "questions_gen_sqlite.jsonl", "questions_gen.csv")
	if err != nil {
		return nil, err
	}
	if strings.HasSuffix(path, ".jsonl") {
		return readSharedJSONL(path, rep)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	defer f.Close()
	r := csv.NewReader(f)
	r.FieldsPerRecord = -1
	header, err := r.Read()
	if err != nil {
		return nil, fmt.Errorf("%s: read CSV header: %w", path, err)
	}
	col := map[string]int{}
	for i, h := range header {
		col[strings.TrimSpace(strings.TrimPrefix(h, "\ufeff"))] = i
	}
	dbCol, ok := col["db_name"]
	if !ok {
		dbCol, ok = col["db_id"]
	}
	qCol, ok2 := col["query"]
	if !ok || !ok2 {
		return nil, sqlgym.Userf("give defog sql-eval's questions CSV (columns db_name, query, question)",
			"%s: no db_name and query columns in the header %v", path, header)
	}
	get := func(rec []string, name string) string {
		if i, ok := col[name]; ok && i < len(rec) {
			return rec[i]
		}
		return ""
	}
	prefix := stem(path)
	var tasks []sqlgym.Task
	for n := 0; ; n++ {
		rec, err := r.Read()
		if err != nil {
			if errors.Is(err, io.EOF) {
				break
			}
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		if dbCol >= len(rec) || qCol >= len(rec) || rec[dbCol] == "" || rec[qCol] == "" {
			rep.skip("missing db_name or query")
			continue
		}
		golds := ExpandBraces(rec[qCol])
		t := sqlgym.Task{
			ID: fmt.Sprintf("%s_%03d", prefix, n), DB: rec[dbCol], Question: get(rec, "question"),
			SQL: golds[0], Alternatives: otherGolds(golds[0], golds[1:]), Evidence: get(rec, "instructions"),
		}
		if c := get(rec, "query_category"); c != "" {
			b, _ := json.Marshal(c)
			t.Extra = map[string]json.RawMessage{"query_category": b}
		}
		tasks = append(tasks, t)
	}
	return tasks, nil
}

// ExpandBraces expands sql-eval's alternative columns: each {a, b} group
// in a gold stands for every non-empty subset of its items, smallest first
// in their written order ({a, b} -> "a", "b", "a, b"), and a query with
// several groups for every combination. The first expansion is the gold,
// the rest its alternatives. Braces inside string literals are left alone.
func ExpandBraces(sql string) []string {
	parts, groups := splitBraces(sql)
	if len(groups) == 0 {
		return []string{sql}
	}
	choices := make([][]string, len(groups))
	for i, g := range groups {
		choices[i] = subsets(g)
	}
	var out []string
	idx := make([]int, len(groups))
	for {
		var b strings.Builder
		for i, p := range parts {
			b.WriteString(p)
			if i < len(groups) {
				b.WriteString(choices[i][idx[i]])
			}
		}
		out = append(out, b.String())
		// Advance the last group fastest, like nested loops.
		k := len(idx) - 1
		for k >= 0 {
			idx[k]++
			if idx[k] < len(choices[k]) {
				break
			}
			idx[k] = 0
			k--
		}
		if k < 0 {
			return out
		}
	}
}

// splitBraces cuts sql into the text around {...} groups (outside quotes)
// and the comma-separated items of each group.
func splitBraces(sql string) (parts []string, groups [][]string) {
	var cur strings.Builder
	quote := byte(0)
	for i := 0; i < len(sql); i++ {
		c := sql[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
			cur.WriteByte(c)
		case c == '\'' || c == '"':
			quote = c
			cur.WriteByte(c)
		case c == '{':
			end := strings.IndexByte(sql[i:], '}')
			if end < 0 {
				cur.WriteString(sql[i:])
				i = len(sql)
				continue
			}
			var items []string
			for _, it := range strings.Split(sql[i+1:i+end], ",") {
				if it = strings.TrimSpace(it); it != "" {
					items = append(items, it)
				}
			}
			parts = append(parts, cur.String())
			cur.Reset()
			groups = append(groups, items)
			i += end
		default:
			cur.WriteByte(c)
		}
	}
	parts = append(parts, cur.String())
	return parts, groups
}

func subsets(items []string) []string {
	var out []string
	n := len(items)
	for size := 1; size <= n; size++ {
		var rec func(start int, chosen []string)
		rec = func(start int, chosen []string) {
			if len(chosen) == size {
				out = append(out, strings.Join(chosen, ", "))
				return
			}
			for i := start; i < n; i++ {
				rec(i+1, append(chosen, items[i]))
			}
		}
		rec(0, nil)
	}
	return out
}
