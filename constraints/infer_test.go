package constraints_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym/constraints"
	"github.com/sqlgym/sqlgym/engine"
	"github.com/sqlgym/sqlgym/engine/sqlite"
	"github.com/sqlgym/sqlgym/internal/testenv"
	"github.com/sqlgym/sqlgym/schema"
)

// infer opens a SQLite file and infers its constraints.
func infer(t *testing.T, path string) *constraints.Set {
	t.Helper()
	ctx := context.Background()
	eng, err := engine.Open(ctx, "sqlite:"+path, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	s, err := schema.Load(ctx, eng, 0)
	if err != nil {
		t.Fatal(err)
	}
	set, err := constraints.Infer(ctx, eng, s, constraints.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return set
}

// tally counts agreement between what a keyless copy implies and what
// the keyed copy declares.
type tally struct{ tp, fp, fn int }

func (c tally) precision() float64 { return float64(c.tp) / float64(max(1, c.tp+c.fp)) }
func (c tally) recall() float64    { return float64(c.tp) / float64(max(1, c.tp+c.fn)) }

func keyNames(set *constraints.Set, declared bool) map[string]bool {
	out := map[string]bool{}
	for _, k := range set.Keys {
		if k.Declared == declared {
			out[strings.ToLower(k.Table+"("+strings.Join(k.Columns, ",")+")")] = true
		}
	}
	return out
}

func fkNames(set *constraints.Set, declared bool) map[string]bool {
	out := map[string]bool{}
	for _, f := range set.ForeignKeys {
		if f.Declared == declared {
			out[strings.ToLower(f.Table+"."+strings.Join(f.Columns, ",")+"->"+f.RefTable+"."+strings.Join(f.RefColumns, ","))] = true
		}
	}
	return out
}

func score(c *tally, got, want map[string]bool, log func(string, ...any), what string) {
	for k := range got {
		if want[k] {
			c.tp++
		} else {
			c.fp++
			log("%s implied, not declared: %s", what, k)
		}
	}
	for k := range want {
		if !got[k] {
			c.fn++
			log("%s declared, not implied: %s", what, k)
		}
	}
}

// TestSpiderKeysAgainstDeclared infers the keys of Spider dev's keyless
// copy and scores them against the keys its keyed copy declares.
func TestSpiderKeysAgainstDeclared(t *testing.T) {
	data := testenv.SharedData(t)
	dir := filepath.Join(data, "spider_dev", "database")
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var pk, fk tally
	var lines []string
	log := func(f string, a ...any) { lines = append(lines, fmt.Sprintf(f, a...)) }
	for _, e := range ents {
		name := e.Name()
		bare := infer(t, testenv.CopyFile(t, filepath.Join(dir, name, name+".sqlite")))
		keyed := infer(t, testenv.CopyFile(t, filepath.Join(data, "spider_dev", "database_keyed", name, name+".sqlite")))
		score(&pk, keyNames(bare, false), keyNames(keyed, true), log, name+": key")
		score(&fk, fkNames(bare, false), fkNames(keyed, true), log, name+": fk")
	}
	sort.Strings(lines)
	for _, l := range lines {
		t.Log(l)
	}
	t.Logf("primary keys: precision %.3f recall %.3f (%+v); foreign keys: precision %.3f recall %.3f (%+v)",
		pk.precision(), pk.recall(), pk, fk.precision(), fk.recall(), fk)
	// Measured 2026-12-02: keys 0.919 / 0.932, foreign keys 1.000 / 0.918.
	floor(t, "spider primary keys", pk, 0.90, 0.90)
	floor(t, "spider foreign keys", fk, 0.95, 0.85)
}

func floor(t *testing.T, what string, c tally, precision, recall float64) {
	t.Helper()
	if c.precision() < precision || c.recall() < recall {
		t.Errorf("%s: precision %.3f recall %.3f, below the floor %.2f / %.2f", what, c.precision(), c.recall(), precision, recall)
	}
}

// dumpKeys reads the single-column primary keys and the REFERENCES of
// a defog PostgreSQL dump: the ground truth of the four dumps that
// declare them.
func dumpKeys(t *testing.T, path string) (keys, fks map[string]bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	keys, fks = map[string]bool{}, map[string]bool{}
	table := ""
	bare := func(s string) string {
		s = strings.Trim(strings.ToLower(s), `"`)
		if i := strings.LastIndexByte(s, '.'); i >= 0 {
			s = s[i+1:]
		}
		return s
	}
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(strings.TrimSpace(line))
		if len(f) >= 3 && strings.EqualFold(f[0], "CREATE") && strings.EqualFold(f[1], "TABLE") {
			table = bare(strings.TrimSuffix(f[2], "("))
			continue
		}
		if table == "" || len(f) < 2 {
			continue
		}
		up := strings.ToUpper(line)
		if strings.Contains(up, "PRIMARY KEY") && !strings.HasPrefix(strings.TrimSpace(up), "PRIMARY KEY") {
			keys[table+"("+bare(f[0])+")"] = true
		}
		if i := strings.Index(up, "REFERENCES "); i >= 0 {
			ref := strings.Fields(line[i+len("REFERENCES "):])[0]
			ref = strings.TrimRight(ref, ",);")
			rt, rc, _ := strings.Cut(ref, "(")
			fks[table+"."+bare(f[0])+"->"+bare(rt)+"."+bare(rc)] = true
		}
	}
	return keys, fks
}

// TestDefogKeysAgainstDumps scores the keys implied on defog's keyless
// SQLite files against those its PostgreSQL dumps declare (broker,
// car_dealership, derm_treatment, ewallet; the other seven declare none).
func TestDefogKeysAgainstDumps(t *testing.T) {
	data := testenv.SharedData(t)
	var pk, fk tally
	var lines []string
	log := func(f string, a ...any) { lines = append(lines, fmt.Sprintf(f, a...)) }
	for _, name := range []string{"broker", "car_dealership", "derm_treatment", "ewallet"} {
		set := infer(t, testenv.CopyFile(t, filepath.Join(data, "defog", "database", name, name+".sqlite")))
		keys, fks := dumpKeys(t, filepath.Join(data, "defog", "postgres_dumps", name+".sql"))
		score(&pk, keyNames(set, false), keys, log, name+": key")
		score(&fk, fkNames(set, false), fks, log, name+": fk")
	}
	sort.Strings(lines)
	for _, l := range lines {
		t.Log(l)
	}
	t.Logf("primary keys: precision %.3f recall %.3f (%+v); foreign keys: precision %.3f recall %.3f (%+v)",
		pk.precision(), pk.recall(), pk, fk.precision(), fk.recall(), fk)
	// Measured 2026-12-02: keys 1.000 / 1.000; foreign keys 0.737 / 1.000,
	// the five "false" ones undeclared references the data and names
	// plainly mean (user_sessions.user_id -> users.uid).
	floor(t, "defog primary keys", pk, 0.95, 0.95)
	floor(t, "defog foreign keys", fk, 0.70, 0.95)
}

// TestInferSmall checks the rules on a database of its own: a key named
// and typed like one, a REAL id with a fraction refused, a reference
// named for its parent, and a number column whose values all happen to
// be ids but whose name does not fit, which is no foreign key.
func TestInferSmall(t *testing.T) {
	path := filepath.Join(t.TempDir(), "small.sqlite")
	stmts := []string{
		`CREATE TABLE countries (countryid INTEGER, name TEXT)`,
		`INSERT INTO countries VALUES (1, 'France'), (2, 'Japan'), (3, 'Chile')`,
		`CREATE TABLE makers (id INTEGER, maker TEXT, country INTEGER, rank INTEGER)`,
		`INSERT INTO makers VALUES (1, 'a', 1, 3), (2, 'b', 1, 2), (3, 'c', NULL, 1)`,
		`CREATE TABLE odd (id REAL, v TEXT)`,
		`INSERT INTO odd VALUES (1.5, 'x'), (2, 'y')`,
	}
	if err := sqlite.Create(context.Background(), path, stmts); err != nil {
		t.Fatal(err)
	}
	set := infer(t, path)
	got := keyNames(set, false)
	for _, want := range []string{"countries(countryid)", "makers(id)"} {
		if !got[want] {
			t.Errorf("key %s not implied; got %v", want, got)
		}
	}
	if got["odd(id)"] {
		t.Errorf("a REAL id with a fraction was taken as a key")
	}
	fks := fkNames(set, false)
	if !fks["makers.country->countries.countryid"] {
		t.Errorf("makers.country -> countries not implied; got %v", fks)
	}
	if len(fks) != 1 {
		t.Errorf("foreign keys %v, want only makers.country (rank fits no table)", fks)
	}
	if f := set.Facts("makers", "country"); !f.Nulls || !f.Duplicates {
		t.Errorf("makers.country facts %+v, want a NULL and a duplicate", f)
	}
	if f := set.Facts("countries", "name"); f.Nulls || f.Duplicates {
		t.Errorf("countries.name facts %+v, want none", f)
	}
}

// TestHoldsOn keeps of the implied constraints only what another copy of
// the database also keeps: an orphan drops the foreign key, a repeated
// id the key, and a NULL shows in the column's facts.
func TestHoldsOn(t *testing.T) {
	ctx := context.Background()
	mk := func(extra ...string) string {
		path := filepath.Join(t.TempDir(), "db.sqlite")
		stmts := append([]string{
			`CREATE TABLE countries (countryid INTEGER, name TEXT)`,
			`INSERT INTO countries VALUES (1, 'France'), (2, 'Japan')`,
			`CREATE TABLE makers (id INTEGER, maker TEXT, country INTEGER)`,
			`INSERT INTO makers VALUES (1, 'a', 1), (2, 'b', 2)`,
		}, extra...)
		if err := sqlite.Create(ctx, path, stmts); err != nil {
			t.Fatal(err)
		}
		return path
	}
	set := infer(t, mk())
	if len(set.Keys) != 2 || len(set.ForeignKeys) != 1 {
		t.Fatalf("original: keys %v, foreign keys %v", set.Keys, set.ForeignKeys)
	}
	on := func(path string) *constraints.Set {
		eng, err := engine.Open(ctx, "sqlite:"+path, engine.Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer eng.Close()
		s, err := schema.Load(ctx, eng, 0)
		if err != nil {
			t.Fatal(err)
		}
		out, err := set.HoldsOn(ctx, eng, s, constraints.Options{})
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	if got := on(mk()); len(got.Keys) != 2 || len(got.ForeignKeys) != 1 {
		t.Errorf("on an equal copy: keys %v, foreign keys %v", got.Keys, got.ForeignKeys)
	}
	got := on(mk(`INSERT INTO makers VALUES (2, NULL, 9)`))
	if len(got.ForeignKeys) != 0 || got.Key("makers") != nil || got.Key("countries") == nil {
		t.Errorf("with an orphan and a repeated id: keys %v, foreign keys %v", got.Keys, got.ForeignKeys)
	}
	if !got.Facts("makers", "maker").Nulls || got.Facts("countries", "name").Nulls {
		t.Errorf("facts: makers.maker %+v, countries.name %+v", got.Facts("makers", "maker"), got.Facts("countries", "name"))
	}
}

// TestInferPairKeyOfReferenceAndLabel implies world_1's countrylanguage
// key on a toy of its shape: a reference and a text label never repeated
// together over enough rows, neither named like a key; the same pair on
// a table too small to tell chance from a key, or with a date in the
// label's place, is no key.
func TestInferPairKeyOfReferenceAndLabel(t *testing.T) {
	mk := func(rows int, label func(i int) string) *constraints.Set {
		path := filepath.Join(t.TempDir(), "pair.sqlite")
		stmts := []string{
			`CREATE TABLE country (code TEXT, name TEXT)`,
			`INSERT INTO country VALUES ('ABW', 'Aruba'), ('AFG', 'Afghanistan'), ('AGO', 'Angola')`,
			`CREATE TABLE countrylanguage (countrycode TEXT, language TEXT, percentage REAL)`,
		}
		codes := []string{"ABW", "AFG", "AGO"}
		for i := range rows {
			stmts = append(stmts, fmt.Sprintf(`INSERT INTO countrylanguage VALUES ('%s', '%s', %d.5)`, codes[i%3], label(i), i))
		}
		if err := sqlite.Create(context.Background(), path, stmts); err != nil {
			t.Fatal(err)
		}
		return infer(t, path)
	}
	lang := func(i int) string { return fmt.Sprintf("lang%d", i/2) }
	if got := keyNames(mk(24, lang), false); !got["countrylanguage(countrycode,language)"] {
		t.Errorf("24 rows: keys %v, want countrylanguage(countrycode,language)", got)
	}
	if got := keyNames(mk(12, lang), false); got["countrylanguage(countrycode,language)"] {
		t.Errorf("12 rows: the pair was implied on a table too small to tell")
	}
	day := func(i int) string { return fmt.Sprintf("2024-01-%02d", 1+i/2) }
	for k := range keyNames(mk(24, day), false) {
		if strings.HasPrefix(k, "countrylanguage(") {
			t.Errorf("a reference and a date column taken as a key: %s", k)
		}
	}
}

// TestOptionalReference: a declared foreign key that may be NULL takes
// NULLs though its data holds none (Observed keeps it nullable); an
// implied one, and a declared one that is NOT NULL, do not.
func TestOptionalReference(t *testing.T) {
	path := filepath.Join(t.TempDir(), "opt.sqlite")
	stmts := []string{
		`CREATE TABLE stadium (stadium_id INTEGER PRIMARY KEY, name TEXT)`,
		`INSERT INTO stadium VALUES (1, 'a'), (2, 'b')`,
		`CREATE TABLE concert (concert_id INTEGER PRIMARY KEY, stadium_id INTEGER REFERENCES stadium(stadium_id), host_id INTEGER NOT NULL REFERENCES stadium(stadium_id))`,
		`INSERT INTO concert VALUES (1, 1, 1), (2, 2, 1), (3, 2, 2)`,
		`CREATE TABLE show (show_id INTEGER PRIMARY KEY, concert_id INTEGER)`,
		`INSERT INTO show VALUES (1, 1), (2, 3)`,
	}
	if err := sqlite.Create(context.Background(), path, stmts); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	eng, err := engine.Open(ctx, "sqlite:"+path, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	s, err := schema.Load(ctx, eng, 0)
	if err != nil {
		t.Fatal(err)
	}
	set, err := constraints.Infer(ctx, eng, s, constraints.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		table, col string
		optional   bool
	}{{"concert", "stadium_id", true}, {"concert", "host_id", false}, {"show", "concert_id", false}} {
		tab := s.Table(c.table)
		col := tab.Column(c.col)
		if got := set.OptionalReference(c.table, col); got != c.optional {
			t.Errorf("%s.%s: OptionalReference %v, want %v", c.table, c.col, got, c.optional)
		}
		if nn, _ := set.Observed(tab, col); nn == c.optional {
			t.Errorf("%s.%s: Observed never-NULL %v with OptionalReference %v", c.table, c.col, nn, c.optional)
		}
	}
}
