package variants

import (
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/engine/sqlite"
	"github.com/sqlgym/sqlgym/screen"
)

// The trim: every answer right on the original runs again on each
// variant, and what a run costs follows the rows it reads, so a variant
// of the original's size costs about one more original. The original is
// always judged too, so a variant needs only the rows its kills and its
// golds' determinism need: trim deletes the original rows no edit
// inserted or changed, in seeded steps, keeping a step only if the
// variant still kills every mutant it was kept for and every gold stays
// as it was. Before it, the thinning runs the same steps on the original
// under the variant's edits (trimSpec.thin), which takes out the rows
// the trim cannot: those an edit computed from the data rests on.

// maxTrimTrials bounds the full checks (every gold and kill a deletion
// could change) spent trimming one variant, maxTrimRepairs the cheap
// checks that halve a step against the golds and tasks it broke; the rows
// not yet tried stay, which only makes the variant larger.
// A step's halving gets at most maxStepRepairs of them, so that a table
// whose every row some gold or kill rests on (a row set to the table's
// mean, a group pushed one row past another) does not take the budget of
// the tables after it; it starts from trimChunks chunks of the step.
const (
	maxTrimTrials  = 24
	maxTrimRepairs = 1500
	maxStepRepairs = 120
	trimChunks     = 8
)

// minTrimStep is the fewest rows a step deletes: below it a trial costs
// more than the rows it could save.
const minTrimStep = 8

// trimSpec is one pass over a kept variant: the trim proper, which
// deletes original rows from the variant as built, or the thinning before
// it, which deletes them from the original under the variant's edits.
type trimSpec struct {
	label  string // for the log
	stream uint64 // seed stream of the order rows are tried in
	// thin deletes rows before the edits: a trial is the original less
	// the rows, then the variant's statements. Edits pick their rows by
	// position and compute their values from the data (a row set to a
	// column's mean, copies that push a runner-up past the leader), so
	// they size themselves to what is left, where the trim proper cannot
	// take out a row such an edit rests on.
	thin bool
	// trials, repairs and stepRepairs bound the full checks, the halving
	// checks, and the halving checks of one step.
	trials, repairs, stepRepairs int
}

// variantTrim is the trim of kept variant idx: half the untouched rows,
// then half of what is left, twice.
func variantTrim(idx int) trimSpec {
	return trimSpec{label: fmt.Sprintf("variant %d", idx+1), stream: uint64(3<<32 + idx),
		trials: maxTrimTrials, repairs: maxTrimRepairs, stepRepairs: maxStepRepairs}
}

// variantThin is the thinning of kept variant idx, with the trim's
// steps and bounds. Its trials rebuild every edit, which makes each dearer
// than the trim's; a variant of many aims, whose kills rest on rows all
// over, spends its bound early and stays near its packed size.
func variantThin(idx int) trimSpec {
	return trimSpec{label: fmt.Sprintf("variant %d, thinning", idx+1), stream: uint64(5<<32 + idx), thin: true,
		trials: maxTrimTrials, repairs: maxTrimRepairs, stepRepairs: maxStepRepairs}
}

// trimTable is one table's rows in a variant, as the trim sees them.
type trimTable struct {
	name    string
	cols    map[string]int // lower-cased column name -> index in a row
	rows    map[int64][]sqlgym.Value
	rowids  []int64 // in rowid order
	touched map[int64]bool
}

// trimAll thins and trims each kept variant in turn, and
// then sets killedBy (a mutant id to the name of the first kept variant
// that kills it) and each variant's new kills to what they end up as.
func (g *Generator) trimAll(ctx context.Context, kept []*candidate, res *DBResult, killedBy map[string]string, weak []sqlgym.Task, sopt screen.Options, survivors map[string]screen.Mutant) error {
	orig, err := readTrimTables(ctx, g.sqliteOrig(), g.schema, nil)
	if err != nil {
		return err
	}
	for i, c := range kept {
		k := &res.Variants[i]
		// A variant must keep the kills no other kept variant has as it
		// stands now: the earlier ones as thinned and trimmed, the later
		// ones as packed. Each step keeps every mutant killed somewhere,
		// and a kill several variants share binds only the last of them.
		need := map[string]bool{}
		for id := range c.killed {
			if !slices.ContainsFunc(kept, func(o *candidate) bool { return o != c && o.killed[id] }) {
				need[id] = true
			}
		}
		for _, spec := range []trimSpec{variantThin(i), variantTrim(i)} {
			if err := g.trim(ctx, spec, c, orig, need, weak, sopt, survivors); err != nil {
				return err
			}
		}
		k.Statements = c.stmts
		k.ThinnedRows, k.ThinStatements = c.thinned, c.thinStmts
		k.Kills = len(c.killed)
		k.Rows, k.TrimmedRows, k.TrimTrials = c.rows, c.trimmed, c.trials
	}
	// Who kills what first, and what is new in each, as they are now.
	clear(killedBy)
	for i, c := range kept {
		res.Variants[i].NewKills = 0
		for _, id := range sortedIDs(c.killed) {
			if _, done := killedBy[id]; !done {
				killedBy[id] = res.Variants[i].Name
				res.Variants[i].NewKills++
			}
		}
	}
	return nil
}

// trim deletes untouched rows from c, table by table, largest first: a
// seeded half of its untouched rows, then half of what is left. Children
// of a deleted row go with it unless an edit touched them, and then the
// row stays (foreign keys are enforced by the edit path). A step is kept
// when the golds that read the tables it deletes from stay fine (and
// non-empty where only this variant made them so) and the tasks among
// them still kill every mutant in need. A step that breaks some is halved
// against those alone: random deletions break golds that rest on a few
// rows (the n+1st row of an ORDER BY ... LIMIT n that would tie), and
// halving finds those rows with checks of a few golds and tasks, each a
// fraction of a full check.
//
// Thinning (spec.thin) runs the same steps on the original's rows, every
// one untouched, under the variant's statements: see trimSpec.
func (g *Generator) trim(ctx context.Context, spec trimSpec, c *candidate, orig map[string]*trimTable, need map[string]bool, weak []sqlgym.Task, sopt screen.Options, survivors map[string]screen.Mutant) error {
	from := g.sqliteOrig()
	var tabs map[string]*trimTable
	var err error
	if spec.thin {
		tabs, err = readTrimTables(ctx, from, g.schema, nil)
	} else {
		tabs, err = readTrimTables(ctx, c.file(), g.schema, orig)
	}
	if err != nil {
		return err
	}
	// rows is what the pass starts from: the variant's rows, or the
	// original's under a thinning.
	var rows int64
	for _, t := range tabs {
		rows += int64(len(t.rowids))
	}
	if !spec.thin {
		c.rows = rows
	}
	var needTasks []sqlgym.Task
	for _, t := range weak {
		for _, m := range screen.WeakMutants(t) {
			if need[mutantID(t.ID, m.SQL)] {
				needTasks = append(needTasks, t)
				break
			}
		}
	}
	// Each table's untouched rows in a seeded order: a step takes the
	// next rows of it, so the rows left spread over the key range as the
	// original's do.
	rng := rand.New(rand.NewPCG(g.opt.Seed, spec.stream))
	queue := map[string][]int64{}
	var names []string
	for _, t := range g.schema.Tables {
		tt := tabs[strings.ToLower(t.Name)]
		if tt == nil {
			continue
		}
		var free []int64
		for _, id := range tt.rowids {
			if !tt.touched[id] {
				free = append(free, id)
			}
		}
		rng.Shuffle(len(free), func(i, j int) { free[i], free[j] = free[j], free[i] })
		queue[tt.name] = free
		names = append(names, tt.name)
	}
	sort.SliceStable(names, func(i, j int) bool { return len(queue[names[i]]) > len(queue[names[j]]) })

	deleted := map[string]map[int64]bool{}
	trial := c.file() + ".trim"
	defer os.Remove(trial)
	trials, repairs, accepted := 0, 0, 0
	var stmts []string
	// closed is deleted plus rows, closed over the foreign keys, and the
	// tables it deletes more from than deleted does.
	closed := func(rows map[string][]int64) (map[string]map[int64]bool, map[string]bool) {
		prop := map[string]map[int64]bool{}
		for name, d := range deleted {
			prop[name] = copySet(d)
		}
		for name, ids := range rows {
			if prop[name] == nil {
				prop[name] = map[int64]bool{}
			}
			for _, id := range ids {
				prop[name][id] = true
			}
		}
		closeOverKeys(tabs, g.schema, prop)
		changed := map[string]bool{}
		for name, set := range prop {
			if len(set) > len(deleted[name]) {
				changed[name] = true
			}
		}
		return prop, changed
	}
	// check builds the trial with prop deleted and returns the golds
	// (of those given) it breaks and the tasks (of those given) that lose
	// a kill of need; refused when a constraint refused a deletion.
	check := func(prop map[string]map[int64]bool, golds []string, tasks []sqlgym.Task) (faults, error) {
		// A trim's trial starts from the built variant, not the
		// original: only the deletions run, which keeps a trial cheap.
		// A thinning's starts from the original, and the variant's
		// statements follow the deletions (those that no longer apply
		// are left out, as the final build leaves them).
		start := c.file()
		if spec.thin {
			start = from
		}
		if err := copyFile(trial, start); err != nil {
			return faults{}, err
		}
		del := deleteStatements(tabs, g.schema, prop)
		applied, err := scratchEdit(ctx, trial, g.fileGuards(), del)
		if err != nil {
			return faults{}, err
		}
		if slices.Contains(applied, false) {
			return faults{refused: true}, nil
		}
		if spec.thin {
			if _, err := scratchEdit(ctx, trial, g.fileGuards(), c.stmts); err != nil {
				return faults{}, err
			}
		}
		return g.trimFaults(ctx, trial, c, golds, tasks, need, sopt, survivors)
	}
	// step tries deleting the next n untouched rows of a table: on a
	// fault, the rows are halved against the faulty golds and tasks alone
	// (cheap checks), and the rest is checked in full again, at most
	// three times. The rows tried leave the queue either way.
	step := func(name string, n int) error {
		fresh := append([]int64(nil), queue[name][:n]...)
		queue[name] = queue[name][n:]
		for round := 0; round < 3 && len(fresh) >= minTrimStep && trials < spec.trials; round++ {
			prop, changed := closed(map[string][]int64{name: fresh})
			if len(changed) == 0 {
				return nil
			}
			trials++
			if spec.thin {
				changed = spread(changed, c.stmts)
			}
			golds, tasks := g.readers(changed, needTasks)
			f, err := check(prop, golds, tasks)
			if err != nil {
				return err
			}
			if !f.refused && len(f.golds) == 0 && len(f.tasks) == 0 {
				for s, st := range f.states {
					c.golds[s] = st
				}
				deleted, stmts = prop, deleteStatements(tabs, g.schema, prop)
				for t, q := range queue {
					queue[t] = slices.DeleteFunc(q, func(id int64) bool { return prop[t][id] })
				}
				accepted++
				return nil
			}
			g.opt.Log("%s: trim %s, trial %d (%s, %d rows): %d golds broken, %d tasks lose kills, refused %v", g.name, spec.label, trials, name, len(fresh), len(f.golds), len(f.tasks), f.refused)
			if f.refused {
				return nil
			}
			// Halving: a part is kept when the faulty golds and tasks
			// stay fine with it.
			var keep []int64
			budget := spec.stepRepairs
			more := func() bool {
				if repairs >= spec.repairs || budget == 0 {
					return false
				}
				repairs++
				budget--
				return true
			}
			fits := func(with []int64) (bool, error) {
				prop, _ := closed(map[string][]int64{name: with})
				r, err := check(prop, f.golds, f.tasks)
				return err == nil && !r.refused && len(r.golds) == 0 && len(r.tasks) == 0, err
			}
			// The whole step just failed: its chunks are tried, not it.
			size := (len(fresh) + trimChunks - 1) / trimChunks
			for lo := 0; lo < len(fresh); lo += size {
				if keep, err = addByHalves(keep, fresh[lo:min(lo+size, len(fresh))], more, fits); err != nil {
					return err
				}
			}
			fresh = keep
		}
		return nil
	}
	// Table by table, largest first: half the untouched rows, then half
	// of what is left, twice.
	for _, name := range names {
		for range 3 {
			n := len(queue[name]) / 2
			if n < minTrimStep || trials >= spec.trials {
				break
			}
			if err := step(name, n); err != nil {
				return err
			}
		}
	}
	if !spec.thin {
		c.trials = trials
	}
	if accepted == 0 {
		g.opt.Log("%s: trim %s: %d rows, none deleted in %d trials (%d repair builds)", g.name, spec.label, rows, trials, repairs)
		return nil
	}
	// The trimmed variant goes to a new file: the catalog keeps an engine
	// open on the old one, which the screens below must not share.
	suffix, all := "_trim.sqlite", append(append([]string(nil), c.stmts...), stmts...)
	if spec.thin {
		suffix, all = "_thin.sqlite", append(append([]string(nil), stmts...), c.stmts...)
	}
	path := strings.TrimSuffix(c.file(), ".sqlite") + suffix
	if err := copyFile(path, from); err != nil {
		return err
	}
	applied, err := build(ctx, path, g.fileGuards(), []group{{stmts: all}})
	if err != nil {
		return err
	}
	if spec.thin && !slices.Equal(applied[:min(len(stmts), len(applied))], stmts) {
		g.opt.Log("%s: trim %s: a deletion was refused on the final build, kept unthinned", g.name, spec.label)
		os.Remove(path)
		return nil
	}
	// The full checks decide: every gold, every weak task.
	golds, err := checkGolds(ctx, path, g.golds, g.opt.Limits)
	if err != nil {
		return err
	}
	killed, err := g.kills(ctx, "sqlite:"+path, weak, sopt, survivors)
	if err != nil {
		return err
	}
	if bad := broken(g.goldStates, golds); len(bad) > 0 || !covers(killed, need) {
		g.opt.Log("%s: trim %s: the full check refused the trim (%d golds broken), kept untrimmed", g.name, spec.label, len(bad))
		os.Remove(path)
		return nil
	}
	n := 0
	for _, set := range deleted {
		n += len(set)
	}
	g.opt.Log("%s: trim %s: %d rows, %d deleted in %d of %d trials (%d repair builds), kills %d (needs %d)", g.name, spec.label, rows, n, accepted, trials, repairs, len(killed), len(need))
	c.url, c.stmts, c.golds, c.killed = "sqlite:"+path, applied, golds, killed
	if spec.thin {
		c.thinned, c.thinStmts = n, len(stmts)
		return nil
	}
	c.rows -= int64(n)
	c.trimmed = n
	return nil
}

// spread is changed with the tables the statements write when they read
// a table of changed, to a fixed point: under a thinning, deleting rows
// of one table changes what an edit copies from it into another. A
// statement whose table is not known spreads to every table.
func spread(changed map[string]bool, stmts []string) map[string]bool {
	out := maps.Clone(changed)
	for grew := true; grew; {
		grew = false
		for _, s := range stmts {
			w := groupTable(group{stmts: []string{s}})
			if w != "" && out[w] {
				continue
			}
			hit := false
			for tb := range readTables([]string{s}) {
				if out[tb] {
					hit = true
					break
				}
			}
			if !hit {
				continue
			}
			if w == "" {
				out[""] = true
				return out
			}
			out[w], grew = true, true
		}
	}
	return out
}

// readers is the golds, and the tasks of needTasks, that read a table of
// changed: the only ones a deletion there can change.
func (g *Generator) readers(changed map[string]bool, needTasks []sqlgym.Task) ([]string, []sqlgym.Task) {
	if changed[""] {
		// A table not known changed (spread): every gold and task.
		return g.golds, needTasks
	}
	reads := func(golds []string) bool {
		for w := range readTables(golds) {
			if changed[w] {
				return true
			}
		}
		return false
	}
	var golds []string
	for _, s := range g.golds {
		if reads([]string{s}) {
			golds = append(golds, s)
		}
	}
	var tasks []sqlgym.Task
	for _, t := range needTasks {
		if reads(t.Golds()) {
			tasks = append(tasks, t)
		}
	}
	return golds, tasks
}

// trimFaults checks a trim on the file at path: the golds that no longer
// run as they did on the original (or that only c made non-empty and are
// now empty), and the tasks that no longer kill a mutant of need.
func (g *Generator) trimFaults(ctx context.Context, path string, c *candidate, golds []string, tasks []sqlgym.Task, need map[string]bool, sopt screen.Options, survivors map[string]screen.Mutant) (faults, error) {
	var f faults
	st, err := checkGolds(ctx, path, golds, g.opt.Limits)
	if err != nil {
		return f, err
	}
	f.states = st
	for _, s := range golds {
		o := g.goldStates[s]
		if (o.ok && !st[s].ok) || (o.rows == 0 && c.golds[s].rows > 0 && st[s].rows == 0) {
			f.golds = append(f.golds, s)
		}
	}
	if len(tasks) == 0 {
		return f, nil
	}
	killed, err := g.killsFresh(ctx, path, tasks, sopt, survivors)
	if err != nil {
		return f, err
	}
	for _, t := range tasks {
		for _, m := range screen.WeakMutants(t) {
			id := mutantID(t.ID, m.SQL)
			if _, ok := survivors[id]; ok && need[id] && !killed[id] {
				f.tasks = append(f.tasks, t)
				break
			}
		}
	}
	return f, nil
}

// faults is what a trim trial broke.
type faults struct {
	golds   []string
	tasks   []sqlgym.Task
	refused bool // a constraint refused a deletion
	states  map[string]goldState
}

// killsFresh is kills on the SQLite file at path through an engine of its
// own, closed after: the file is rebuilt in place between trials, so it
// must never be the catalog's (which keeps an engine per URL).
func (g *Generator) killsFresh(ctx context.Context, path string, tasks []sqlgym.Task, sopt screen.Options, survivors map[string]screen.Mutant) (map[string]bool, error) {
	eng, err := sqlite.Open(path, sqlite.Options{})
	if err != nil {
		return nil, fmt.Errorf("trim: %w", err)
	}
	defer eng.Close()
	return g.killsOn(ctx, eng, "sqlite:"+path, tasks, sopt, survivors)
}

// readTrimTables reads every rowid table of the file. With orig, a row is
// touched unless the original has the same rowid with the same values.
// Tables without a rowid, or with a column that hides it, are left out:
// the trim does not delete from them.
func readTrimTables(ctx context.Context, path string, schema *sqlgym.Schema, orig map[string]*trimTable) (map[string]*trimTable, error) {
	eng, err := sqlite.Open(path, sqlite.Options{PoolSize: 1})
	if err != nil {
		return nil, fmt.Errorf("trim: %w", err)
	}
	defer eng.Close()
	out := map[string]*trimTable{}
	for _, t := range schema.Tables {
		if slices.ContainsFunc(t.Columns, func(c sqlgym.Column) bool {
			n := strings.ToLower(c.Name)
			return n == "rowid" || n == "oid" || n == "_rowid_"
		}) {
			continue
		}
		rs, err := eng.Query(ctx, "SELECT rowid, * FROM "+quoteIdent(t.Name)+" ORDER BY rowid", sqlgym.Limits{MaxRows: 50_000_000, MaxBytes: 1 << 40})
		if err != nil {
			// WITHOUT ROWID: not trimmed.
			continue
		}
		tt := &trimTable{name: strings.ToLower(t.Name), cols: map[string]int{}, rows: map[int64][]sqlgym.Value{}, touched: map[int64]bool{}}
		for i, c := range rs.Columns[1:] {
			tt.cols[strings.ToLower(c)] = i
		}
		var o *trimTable
		if orig != nil {
			o = orig[tt.name]
		}
		for _, r := range rs.Rows {
			id := r[0].Int
			tt.rowids = append(tt.rowids, id)
			tt.rows[id] = r[1:]
			if orig != nil && (o == nil || !slices.Equal(o.rows[id], r[1:])) {
				tt.touched[id] = true
			}
		}
		out[tt.name] = tt
	}
	return out, nil
}

// fkLink is one foreign key between two trimmed tables, with the parent's
// rows indexed by the referenced values.
type fkLink struct {
	child, parent *trimTable
	ccols         []int
	parents       map[string][]int64
}

// links is the schema's foreign keys between trimmed tables; a key on a
// table the trim does not read cannot be followed and is left out (the
// edit path then refuses a deletion that breaks it, and the step with it).
func links(tabs map[string]*trimTable, schema *sqlgym.Schema) []fkLink {
	var out []fkLink
	for _, t := range schema.Tables {
		child := tabs[strings.ToLower(t.Name)]
		if child == nil {
			continue
		}
		for _, fk := range t.ForeignKeys {
			parent := tabs[strings.ToLower(fk.RefTable)]
			if parent == nil {
				continue
			}
			refs := fk.RefColumns
			if len(refs) == 0 {
				if pt := schema.Table(fk.RefTable); pt != nil {
					refs = pt.PrimaryKey
				}
			}
			l := fkLink{child: child, parent: parent, parents: map[string][]int64{}}
			var pcols []int
			ok := len(refs) == len(fk.Columns) && len(refs) > 0
			for i := 0; ok && i < len(refs); i++ {
				ci, cok := child.cols[strings.ToLower(fk.Columns[i])]
				pi, pok := parent.cols[strings.ToLower(refs[i])]
				ok = cok && pok
				l.ccols, pcols = append(l.ccols, ci), append(pcols, pi)
			}
			if !ok {
				continue
			}
			for _, id := range parent.rowids {
				if k, ok := keyOf(parent.rows[id], pcols); ok {
					l.parents[k] = append(l.parents[k], id)
				}
			}
			out = append(out, l)
		}
	}
	return out
}

// keyOf is the values of cols as one map key; false when one is NULL (a
// NULL foreign key refers to nothing).
func keyOf(row []sqlgym.Value, cols []int) (string, bool) {
	var b strings.Builder
	for _, c := range cols {
		v := row[c]
		if v.IsNull() {
			return "", false
		}
		// Keys compare as SQLite compares them after affinity: an integer
		// 3 and a text '3' in an INTEGER column are the same reference.
		b.WriteString(v.String())
		b.WriteByte(0)
	}
	return b.String(), true
}

// closeOverKeys makes the deletion set del safe under the foreign keys:
// children of a deleted row are deleted too unless touched, and then every
// row a kept row refers to is kept.
func closeOverKeys(tabs map[string]*trimTable, schema *sqlgym.Schema, del map[string]map[int64]bool) {
	ls := links(tabs, schema)
	in := func(t *trimTable, id int64) bool { return del[t.name][id] }
	for changed := true; changed; {
		changed = false
		for _, l := range ls {
			for _, id := range l.child.rowids {
				if in(l.child, id) || l.child.touched[id] {
					continue
				}
				k, ok := keyOf(l.child.rows[id], l.ccols)
				if !ok {
					continue
				}
				if slices.ContainsFunc(l.parents[k], func(p int64) bool { return in(l.parent, p) }) {
					if del[l.child.name] == nil {
						del[l.child.name] = map[int64]bool{}
					}
					del[l.child.name][id] = true
					changed = true
				}
			}
		}
	}
	for changed := true; changed; {
		changed = false
		for _, l := range ls {
			for _, id := range l.child.rowids {
				if in(l.child, id) {
					continue
				}
				k, ok := keyOf(l.child.rows[id], l.ccols)
				if !ok {
					continue
				}
				for _, p := range l.parents[k] {
					if in(l.parent, p) {
						delete(del[l.parent.name], p)
						changed = true
					}
				}
			}
		}
	}
}

// deleteStatements writes del as one DELETE per table, children before
// their parents, rows named by rowid: the rows are chosen here, from the
// variant as built, so the statements delete exactly them wherever the
// variant is rebuilt from the original and its edits.
func deleteStatements(tabs map[string]*trimTable, schema *sqlgym.Schema, del map[string]map[int64]bool) []string {
	// Order: a table goes once no table left refers to it.
	refBy := map[string]map[string]bool{}
	var names []string
	for _, t := range schema.Tables {
		n := strings.ToLower(t.Name)
		if tabs[n] == nil {
			continue
		}
		names = append(names, n)
		for _, fk := range t.ForeignKeys {
			p := strings.ToLower(fk.RefTable)
			if p == n {
				continue
			}
			if refBy[p] == nil {
				refBy[p] = map[string]bool{}
			}
			refBy[p][n] = true
		}
	}
	done := map[string]bool{}
	var order []string
	for len(order) < len(names) {
		progress := false
		for _, n := range names {
			if done[n] {
				continue
			}
			free := true
			for c := range refBy[n] {
				if !done[c] {
					free = false
				}
			}
			if free {
				done[n], order, progress = true, append(order, n), true
			}
		}
		if !progress {
			// A cycle of keys: the rest in schema order, and a refused
			// statement refuses the step.
			for _, n := range names {
				if !done[n] {
					done[n], order = true, append(order, n)
				}
			}
		}
	}
	var out []string
	for _, n := range order {
		if len(del[n]) == 0 {
			continue
		}
		ids := make([]int64, 0, len(del[n]))
		for id := range del[n] {
			ids = append(ids, id)
		}
		slices.Sort(ids)
		var b strings.Builder
		b.WriteString("DELETE FROM " + quoteIdent(schemaName(schema, n)) + " WHERE rowid IN (")
		for i, id := range ids {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(strconv.FormatInt(id, 10))
		}
		b.WriteByte(')')
		out = append(out, b.String())
	}
	return out
}

// schemaName is the table's name as the schema spells it.
func schemaName(schema *sqlgym.Schema, lower string) string {
	if t := schema.Table(lower); t != nil {
		return t.Name
	}
	return lower
}

// copySet copies a set of rowids: a step works on a copy and keeps it only
// when the step holds.
func copySet(m map[int64]bool) map[int64]bool {
	out := make(map[int64]bool, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// sqliteOrig is the original SQLite file: the trim runs only on a SQLite
// target (Run checks), whose candidates are copies of it.
func (g *Generator) sqliteOrig() string { return g.tgt.(*fileTarget).orig }

// fileGuards is the SQLite target's guards.
func (g *Generator) fileGuards() *guardFilter { return g.tgt.(*fileTarget).guards }

// file is a SQLite candidate's path.
func (c *candidate) file() string { return strings.TrimPrefix(c.url, "sqlite:") }
