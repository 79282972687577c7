package screen

import (
	"fmt"
	"strings"

	"github.com/sqlgym/sqlgym"
)

// groupKeyDetermined proves a MissingGroupBy mutant equivalent when the
// key it leaves out is a column of a top-level FROM table whose whole
// primary key stays among the keys, every primary-key column NOT NULL:
// all rows of a group then come from one row of that table (or are all
// NULL-extended by an outer join), so the column has one value per group
// and adds no split. A primary key that may hold NULL (SQLite lets a
// non-INTEGER PRIMARY KEY) would merge rows that differ in the column, so
// it proves nothing; nor does a UNIQUE column, which the schema does not
// record.
func groupKeyDetermined(gold string, m Mutant, s *sqlgym.Schema) (bool, string) {
	q := analyse(gold)
	srcs, ok := q.topSources(s)
	if !ok {
		return false, ""
	}
	aliases := q.selectAliases()
	for _, keys := range q.groupBys() {
		if len(keys) < 2 || q.toks[keys[0][0]].depth != 0 {
			continue
		}
		for i := range keys {
			if q.dropGroupKey(keys, i) != m.SQL {
				continue
			}
			src, col, ok := q.keyColumn(keys[i], srcs, aliases)
			if !ok {
				return false, ""
			}
			tb := srcs[src].table
			if !q.otherKeysHoldPrimaryKey(keys, i, src, srcs, aliases) {
				return false, ""
			}
			return true, fmt.Sprintf("%s is one value per group: the other keys hold %s's NOT NULL primary key",
				col.Name, tb.Name)
		}
	}
	return false, ""
}

// keyColumn resolves a GROUP BY key that is exactly a column reference
// ("c" or "t.c") to its source. A bare name that is also a select-list
// alias is refused: SQLite could read it as the alias.
func (q *query) keyColumn(key [2]int, srcs []source, aliases map[string]bool) (int, *sqlgym.Column, bool) {
	last := key[1] - 1
	si, c, first, ok := q.colAt(last, srcs)
	if !ok || first != key[0] {
		return 0, nil, false
	}
	if first == last && aliases[strings.ToLower(unquote(q.toks[last].Text))] {
		return 0, nil, false
	}
	return si, c, true
}

// otherKeysHoldPrimaryKey reports whether the GROUP BY keys other than
// keys[skip] hold every column of the NOT NULL primary key of the table
// srcs[src]: then any column of that table is one value per group.
func (q *query) otherKeysHoldPrimaryKey(keys [][2]int, skip, src int, srcs []source, aliases map[string]bool) bool {
	kept := map[string]bool{}
	for j, key := range keys {
		if si, c, ok := q.keyColumn(key, srcs, aliases); j != skip && ok && si == src {
			kept[strings.ToLower(c.Name)] = true
		}
	}
	tb := srcs[src].table
	if len(tb.PrimaryKey) == 0 {
		return false
	}
	for _, p := range tb.PrimaryKey {
		c := tb.Column(p)
		if c == nil || !c.NotNull || !kept[strings.ToLower(p)] {
			return false
		}
	}
	return true
}
