package variants

import (
	"strconv"
	"strings"

	"github.com/sqlgym/sqlgym/sqltext"
)

// selectParts is one SELECT of a gold, at any depth, cut at its own
// clauses: what the base needs to keep the rows the SELECT reads.
type selectParts struct {
	from, where, order string
}

// selects cuts every SELECT of sql (the gold's own, each arm of a
// compound, every subquery) into its FROM, WHERE and ORDER BY text. A
// subquery that reads an outer query's columns does not run alone, and
// the rows it would have kept are then left to the random draw.
func selects(sql string) []selectParts {
	var toks []sqltext.Token
	for _, t := range sqltext.Tokens(sql) {
		if t.Significant() {
			toks = append(toks, t)
		}
	}
	depth := make([]int, len(toks))
	d := 0
	for i, t := range toks {
		if t.IsPunct(")") {
			d--
		}
		depth[i] = d
		if t.IsPunct("(") {
			d++
		}
	}
	var out []selectParts
	for i, t := range toks {
		if !t.IsWord("select") {
			continue
		}
		at := depth[i]
		// Clause starts at this SELECT's depth, up to its end: a closing
		// parenthesis below it or a compound keyword at it.
		clause := map[string]int{}
		end := len(toks)
		for j := i + 1; j < len(toks); j++ {
			if depth[j] < at {
				end = j
				break
			}
			if depth[j] != at || toks[j].Kind != sqltext.Word {
				continue
			}
			w := strings.ToLower(toks[j].Text)
			if w == "union" || w == "intersect" || w == "except" {
				end = j
				break
			}
			switch w {
			case "from", "where", "group", "having", "order", "limit", "window":
				if _, seen := clause[w]; !seen {
					clause[w] = j
				}
			}
		}
		text := func(w string, stops ...string) string {
			s, ok := clause[w]
			if !ok {
				return ""
			}
			e := end
			for _, st := range stops {
				if k, ok := clause[st]; ok && k > s && k < e {
					e = k
				}
			}
			if s+1 >= e {
				return ""
			}
			return sql[toks[s+1].Pos:toks[e-1].End()]
		}
		p := selectParts{
			from:  text("from", "where", "group", "having", "order", "limit", "window"),
			where: text("where", "group", "having", "order", "limit", "window"),
			order: text("order", "limit"),
		}
		if p.order != "" {
			p.order = strings.TrimSpace(p.order)
			if len(p.order) > 2 && strings.EqualFold(p.order[:2], "by") {
				p.order = strings.TrimSpace(p.order[2:])
			} else {
				p.order = ""
			}
		}
		// A grouped or aggregated ORDER BY does not run on rowids.
		if _, grouped := clause["group"]; grouped {
			p.order = ""
		}
		if p.from != "" {
			out = append(out, p)
		}
	}
	return out
}

// provenance is the queries that select, for each table of each SELECT of
// the gold, the rowids of its rows meeting the SELECT's WHERE, first in
// its ORDER BY when it has one (the rows a LIMIT returns): the rows the
// gold returns and reads on the original, a few per table.
func provenance(gold string) []provQuery {
	var out []provQuery
	lim := " LIMIT " + strconv.Itoa(litRows)
	for _, p := range selects(gold) {
		tail := ""
		if strings.TrimSpace(p.where) != "" {
			tail += " WHERE " + p.where
		}
		if p.order != "" {
			tail += " ORDER BY " + p.order
		}
		for _, t := range joinedTables(p.from) {
			out = append(out, provQuery{table: t.table, sql: "SELECT " + t.ref + ".rowid FROM " + p.from + tail + lim})
		}
	}
	return out
}

// provQuery selects rowids of one table.
type provQuery struct{ table, sql string }
