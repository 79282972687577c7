package variants

import "github.com/sqlgym/sqlgym"

// emptiedBy lists, for each task, the kept variants on which one of its
// golds returns no row where it returns rows on the original. A variant
// is shared by every task of its database, and an edit that is a fair
// test for one gold can empty another: a NULL in concert.stadium_id
// catches a NOT IN answer to "stadiums without a concert in 2014" and
// empties the gold of "stadiums without any concert", whose own NOT IN
// meets it. An empty gold judges nothing but whether the answer is empty
// too, and there the data contradicts what the gold's author took it to
// hold, so such a variant leaves that task's db_variants only (the task
// is still judged on the original and its other variants) instead of
// being refused for the whole database. states[i] is the gold check of
// urls[i].
func emptiedBy(tasks []sqlgym.Task, d sqlgym.Dialect, orig map[string]goldState, states []map[string]goldState) map[string][]int {
	out := map[string][]int{}
	for _, t := range tasks {
		for i, st := range states {
			for _, s := range t.GoldsFor(d) {
				if o := orig[s]; o.ok && o.rows > 0 && (!st[s].ok || st[s].rows == 0) {
					out[t.ID] = append(out[t.ID], i)
					break
				}
			}
		}
	}
	return out
}
