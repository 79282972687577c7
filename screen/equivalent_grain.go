package screen

import (
	"fmt"
	"strings"

	"github.com/sqlgym/sqlgym"
)

// grainKeyDetermined proves a WrongGrain mutant equivalent when the key it
// replaces and the column it puts there are both columns of one top-level
// FROM table whose whole NOT NULL primary key stays among the other keys
// (GROUP BY p.product_id, p.name against GROUP BY p.product_id, p.brand):
// each group is then one row of that table under either list (or all of
// its NULL-extended rows), so neither column splits or merges a group.
// The rest of the statement must be the gold's text unchanged.
func grainKeyDetermined(gold string, m Mutant, s *sqlgym.Schema) (bool, string) {
	q, mq := analyse(gold), analyse(m.SQL)
	srcs, ok := q.topSources(s)
	if !ok {
		return false, ""
	}
	msrcs, ok := mq.topSources(s)
	if !ok || len(msrcs) != len(srcs) {
		return false, ""
	}
	gbs, mgbs := q.groupBys(), mq.groupBys()
	if len(gbs) != len(mgbs) {
		return false, ""
	}
	aliases, maliases := q.selectAliases(), mq.selectAliases()
	for g, keys := range gbs {
		mkeys := mgbs[g]
		if len(keys) < 2 || len(mkeys) != len(keys) || q.toks[keys[0][0]].depth != 0 {
			continue
		}
		for i := range keys {
			gs, ge := q.toks[keys[i][0]].Pos, q.toks[keys[i][1]-1].End()
			ms, me := mq.toks[mkeys[i][0]].Pos, mq.toks[mkeys[i][1]-1].End()
			if gold[:gs] != m.SQL[:ms] || gold[ge:] != m.SQL[me:] || gold[gs:ge] == m.SQL[ms:me] {
				continue
			}
			src, col, ok := q.keyColumn(keys[i], srcs, aliases)
			if !ok {
				return false, ""
			}
			msrc, mcol, ok := mq.keyColumn(mkeys[i], msrcs, maliases)
			if !ok || msrcs[msrc].table != srcs[src].table || !strings.EqualFold(msrcs[msrc].name, srcs[src].name) {
				return false, ""
			}
			tb := srcs[src].table
			if !q.otherKeysHoldPrimaryKey(keys, i, src, srcs, aliases) {
				return false, ""
			}
			return true, fmt.Sprintf("%s and %s are one value per group: the other keys hold %s's NOT NULL primary key",
				col.Name, mcol.Name, tb.Name)
		}
	}
	return false, ""
}
