package variants

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/engine"
	"github.com/sqlgym/sqlgym/engine/duckdb"
	"github.com/sqlgym/sqlgym/engine/mysql"
	"github.com/sqlgym/sqlgym/engine/postgres"
)

// target is where a generation makes its candidates: the engine layer of
// the generator. A SQLite or DuckDB database's candidates are copies of
// its file in a folder of the output; a PostgreSQL database's are schemas
// beside its own in the same database.
type target interface {
	dialect() sqlgym.Dialect
	// digest is the original's.
	digest(ctx context.Context) (string, error)
	// build makes candidate idx (trial: the scratch copy a repair
	// tries groups on) as the original with the groups applied, each
	// all or nothing, and returns its URL and the statements that applied.
	build(ctx context.Context, idx int, trial bool, gs []group) (url string, stmts []string, err error)
	// golds runs the author execution filter's two runs of every gold on
	// the database at url (see checkGolds).
	golds(ctx context.Context, url string, golds []string, lim sqlgym.Limits) (map[string]goldState, error)
	// original is the URL variants are judged beside: a copy of the
	// original file written to the output folder, or the original schema.
	original(ctx context.Context) (string, error)
	// keep makes the candidate at url the variant called name.
	keep(ctx context.Context, url, name string) (Kept, error)
	// close removes the candidates not kept.
	close(ctx context.Context) error
}

// ErrNoEngine is returned for databases the generator cannot vary: no
// engine layer for their dialect.
var ErrNoEngine = errors.New("variants: no engine layer for this kind of database")

// newTarget makes the target of the database at url, writing files (a
// SQLite or DuckDB database) to dir.
func (g *Generator) newTarget(ctx context.Context, dir string) (target, error) {
	loc, err := engine.ParseURL(g.url)
	if err != nil {
		return nil, err
	}
	switch loc.Dialect {
	case sqlgym.DialectSQLite, sqlgym.DialectDuckDB:
		tmp, err := os.MkdirTemp(dir, ".candidates-")
		if err != nil {
			return nil, fmt.Errorf("candidates folder: %w", err)
		}
		return &fileTarget{d: loc.Dialect, name: g.name, src: loc.Path, orig: loc.Path, dir: dir, tmp: tmp, guards: g.guards()}, nil
	case sqlgym.DialectPostgres:
		// The server cuts identifiers at 63 bytes: NAME_c12_t must fit, or
		// two candidates' schemas would be one.
		if long := fmt.Sprintf("%s_c%d_t", g.name, g.opt.Candidates); len(long) > 63 {
			return nil, sqlgym.Userf("give the database a shorter name in --db NAME=URL and in the tasks",
				"database name %q is too long for its variant schemas (%s is over PostgreSQL's 63 bytes)", g.name, long)
		}
		t := &pgTarget{name: g.name, dsn: loc.DSN, admin: g.opt.PostgresAdmin, schema: loc.Schema}
		if t.admin == "" {
			t.admin = loc.DSN
		}
		if t.schema == "" {
			t.schema = g.opt.PostgresSchema
		}
		if t.schema == "" {
			t.schema = "public"
		}
		if err := t.prepare(ctx, g.opt.Replace); err != nil {
			return nil, err
		}
		return t, nil
	case sqlgym.DialectMySQL:
		// MySQL cuts database names at 64 characters.
		if long := fmt.Sprintf("%s_c%d_t", g.name, g.opt.Candidates); len(long) > 64 {
			return nil, sqlgym.Userf("give the database a shorter name in --db NAME=URL and in the tasks",
				"database name %q is too long for its variant databases (%s is over MySQL's 64 characters)", g.name, long)
		}
		t := &mysqlTarget{name: g.name, dsn: loc.DSN, admin: g.opt.MySQLAdmin, db: mysql.URLDatabase(loc.DSN)}
		if t.admin == "" {
			t.admin = loc.DSN
		}
		if err := t.prepare(ctx, g.opt.Replace); err != nil {
			return nil, err
		}
		return t, nil
	}
	return nil, fmt.Errorf("database %q is %s: %w", g.name, loc.Dialect, ErrNoEngine)
}

// fileTarget is a SQLite or DuckDB file: candidates are copies of it.
type fileTarget struct {
	d    sqlgym.Dialect
	name string
	// src is the original file; orig the one candidates are copies of:
	// the sampled base (sample.go) once there is one, src before.
	src  string
	orig string
	dir  string // the output folder, DIR/NAME
	tmp  string // the candidates' folder inside it, removed by close
	// guards keep a SQLite candidate's undeclared constraints
	// (sqliteGuards).
	guards []string
}

func (t *fileTarget) dialect() sqlgym.Dialect { return t.d }

func (t *fileTarget) ext() string {
	if t.d == sqlgym.DialectDuckDB {
		return ".duckdb"
	}
	return ".sqlite"
}

func (t *fileTarget) url(path string) string { return string(t.d) + ":" + path }

func (t *fileTarget) path(url string) string { return strings.TrimPrefix(url, string(t.d)+":") }

// copy copies the base of the candidates to path.
func (t *fileTarget) copy(path string) error { return t.copyFrom(path, t.orig) }

// copyFrom copies the file at from to path, with a DuckDB file's
// write-ahead log when one is beside it (changes not yet checkpointed into
// the file, which DuckDB replays on opening the copy).
func (t *fileTarget) copyFrom(path, from string) error {
	if err := copyFile(path, from); err != nil {
		return err
	}
	if t.d != sqlgym.DialectDuckDB {
		return nil
	}
	if _, err := os.Stat(from + ".wal"); err == nil {
		return copyFile(path+".wal", from+".wal")
	}
	// A log left by an earlier copy at path would be replayed into this one.
	if err := os.Remove(path + ".wal"); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("copy database: %w", err)
	}
	return nil
}

func (t *fileTarget) digest(context.Context) (string, error) { return sqlgym.FileDigest(t.src) }

func (t *fileTarget) build(ctx context.Context, idx int, trial bool, gs []group) (string, []string, error) {
	path := filepath.Join(t.tmp, fmt.Sprintf("candidate_%02d%s", idx, t.ext()))
	if trial {
		path += ".trial"
	}
	if err := t.copy(path); err != nil {
		return "", nil, err
	}
	if t.d == sqlgym.DialectSQLite {
		stmts, err := build(ctx, path, t.guards, gs)
		return t.url(path), stmts, err
	}
	applied, err := duckdb.Edit(ctx, path, groupStmts(gs))
	if err != nil {
		return "", nil, err
	}
	return t.url(path), appliedStmts(gs, applied), nil
}

func (t *fileTarget) golds(ctx context.Context, url string, golds []string, lim sqlgym.Limits) (map[string]goldState, error) {
	return checkGoldsURL(ctx, url, golds, lim)
}

// original puts the original beside its variants as a hard link,
// DIR/NAME/NAME.sqlite (Spider's test-suite layout, which --db-dir DIR
// reads), and writes no copy: a copy cost a 1 GB write at 1 GB, for a
// file the task file names anyway (its db, with the digest in the
// manifest). Where no link can be made (another filesystem, a DuckDB
// file with a write-ahead log beside it) the variants are judged beside
// the original where it is, and the layout holds the variants only.
func (t *fileTarget) original(context.Context) (string, error) {
	path := filepath.Join(t.dir, t.name+t.ext())
	if t.d == sqlgym.DialectDuckDB {
		if _, err := os.Stat(t.src + ".wal"); err == nil {
			return t.url(t.src), nil
		}
	}
	if err := os.Link(t.src, path); err != nil {
		return t.url(t.src), nil
	}
	return t.url(path), nil
}

func (t *fileTarget) keep(_ context.Context, url, name string) (Kept, error) {
	k := Kept{Name: name, Path: filepath.Join(t.dir, name+t.ext())}
	if err := os.Rename(t.path(url), k.Path); err != nil {
		return k, fmt.Errorf("write variant: %w", err)
	}
	var err error
	k.Digest, err = sqlgym.FileDigest(k.Path)
	return k, err
}

func (t *fileTarget) close(context.Context) error { return os.RemoveAll(t.tmp) }

// pgTarget is a PostgreSQL schema: candidates are schemas NAME_cK beside
// it, made and changed with the admin DSN's role and read, as the
// verifier reads them, with the database's own (reader) DSN; a kept one is
// renamed NAME_vK.
type pgTarget struct {
	name   string
	dsn    string // the reader's, without schema=
	admin  string // a role that may create schemas
	schema string // the original's
	made   []string
}

func (t *pgTarget) dialect() sqlgym.Dialect { return sqlgym.DialectPostgres }

func (t *pgTarget) digest(ctx context.Context) (string, error) {
	return postgres.Digest(ctx, t.admin, t.schema)
}

// prepare refuses to run over variant or candidate schemas of this name
// left by an earlier run, or drops them when replace.
func (t *pgTarget) prepare(ctx context.Context, replace bool) error {
	return dropLeftovers(ctx, t.name, "postgres schemas", replace,
		func(ctx context.Context, pattern string) ([]string, error) {
			return postgres.SchemasLike(ctx, t.admin, pattern)
		},
		func(ctx context.Context, s string) error { return postgres.DropSchema(ctx, t.admin, s) })
}

// dropLeftovers refuses to run over the candidates and variants of name
// (NAME_cK, NAME_vK, trial copies) an earlier run left on a server, or
// drops them when replace; what names the kind for the error.
func dropLeftovers(ctx context.Context, name, what string, replace bool,
	list func(ctx context.Context, pattern string) ([]string, error), drop func(ctx context.Context, s string) error) error {
	old, err := list(ctx, "^"+regexp.QuoteMeta(name)+`_[cv][0-9]+(_t)?$`)
	if err != nil {
		return fmt.Errorf("variants of %s: %w", name, err)
	}
	if len(old) == 0 {
		return nil
	}
	if !replace {
		return sqlgym.Userf("give --replace to drop them and make new ones",
			"%s %s already hold variants of %s", what, strings.Join(old, ", "), name)
	}
	for _, s := range old {
		if err := drop(ctx, s); err != nil {
			return fmt.Errorf("--replace: %w", err)
		}
	}
	return nil
}

func (t *pgTarget) schemaOf(url string) string {
	loc, _ := engine.ParseURL(url)
	return loc.Schema
}

func (t *pgTarget) build(ctx context.Context, idx int, trial bool, gs []group) (string, []string, error) {
	s := fmt.Sprintf("%s_c%d", t.name, idx)
	if trial {
		s += "_t"
	}
	if err := postgres.DropSchema(ctx, t.admin, s); err != nil {
		return "", nil, err
	}
	if err := postgres.CopySchema(ctx, t.admin, t.schema, s, postgres.DSNUser(t.dsn)); err != nil {
		return "", nil, err
	}
	if !slices.Contains(t.made, s) {
		t.made = append(t.made, s)
	}
	applied, err := postgres.EditSchema(ctx, t.admin, s, groupStmts(gs))
	if err != nil {
		return "", nil, err
	}
	return engine.WithSchema(t.dsn, s), appliedStmts(gs, applied), nil
}

func (t *pgTarget) golds(ctx context.Context, url string, golds []string, lim sqlgym.Limits) (map[string]goldState, error) {
	return checkGoldsURL(ctx, url, golds, lim)
}

func (t *pgTarget) original(context.Context) (string, error) {
	return engine.WithSchema(t.dsn, t.schema), nil
}

func (t *pgTarget) keep(ctx context.Context, url, name string) (Kept, error) {
	from := t.schemaOf(url)
	if err := postgres.RenameSchema(ctx, t.admin, from, name); err != nil {
		return Kept{}, fmt.Errorf("write variant: %w", err)
	}
	for i, s := range t.made {
		if s == from {
			t.made = append(t.made[:i], t.made[i+1:]...)
			break
		}
	}
	k := Kept{Name: name, URL: engine.WithSchema(t.dsn, name)}
	var err error
	k.Digest, err = postgres.Digest(ctx, t.admin, name)
	return k, err
}

func (t *pgTarget) close(ctx context.Context) error {
	var errs []error
	for _, s := range t.made {
		errs = append(errs, postgres.DropSchema(context.WithoutCancel(ctx), t.admin, s))
	}
	t.made = nil
	return errors.Join(errs...)
}

// mysqlRowID is the column that names a row in a MySQL candidate while
// it is edited (see mysql.EditDatabase).
const mysqlRowID = mysql.RowID

// mysqlTarget is a MySQL or MariaDB database: candidates are databases
// NAME_cK on the same server, made and changed with the admin account and
// read, as the verifier reads them, with the database's own (reader)
// account, which is granted SELECT on each; a kept one is renamed NAME_vK.
type mysqlTarget struct {
	name  string
	dsn   string // the reader's mysql:// URL
	admin string // an account that may create databases and grant SELECT
	db    string // the original's
	made  []string
}

func (t *mysqlTarget) dialect() sqlgym.Dialect { return sqlgym.DialectMySQL }

func (t *mysqlTarget) digest(ctx context.Context) (string, error) {
	return mysql.Digest(ctx, t.admin, t.db)
}

// prepare refuses to run over variant or candidate databases of this name
// left by an earlier run, or drops them when replace.
func (t *mysqlTarget) prepare(ctx context.Context, replace bool) error {
	return dropLeftovers(ctx, t.name, "mysql databases", replace,
		func(ctx context.Context, pattern string) ([]string, error) {
			return mysql.DatabasesLike(ctx, t.admin, pattern)
		},
		func(ctx context.Context, d string) error { return mysql.DropDatabase(ctx, t.admin, d) })
}

func (t *mysqlTarget) build(ctx context.Context, idx int, trial bool, gs []group) (string, []string, error) {
	d := fmt.Sprintf("%s_c%d", t.name, idx)
	if trial {
		d += "_t"
	}
	if err := mysql.DropDatabase(ctx, t.admin, d); err != nil {
		return "", nil, err
	}
	if err := mysql.CopyDatabase(ctx, t.admin, t.db, d, t.dsn); err != nil {
		return "", nil, err
	}
	if !slices.Contains(t.made, d) {
		t.made = append(t.made, d)
	}
	applied, err := mysql.EditDatabase(ctx, t.admin, d, groupStmts(gs))
	if err != nil {
		return "", nil, err
	}
	return mysql.URLWithDatabase(t.dsn, d), appliedStmts(gs, applied), nil
}

func (t *mysqlTarget) golds(ctx context.Context, url string, golds []string, lim sqlgym.Limits) (map[string]goldState, error) {
	return checkGoldsURL(ctx, url, golds, lim)
}

func (t *mysqlTarget) original(context.Context) (string, error) { return t.dsn, nil }

func (t *mysqlTarget) keep(ctx context.Context, url, name string) (Kept, error) {
	from := mysql.URLDatabase(url)
	if err := mysql.RenameDatabase(ctx, t.admin, from, name, t.dsn); err != nil {
		return Kept{}, fmt.Errorf("write variant: %w", err)
	}
	if i := slices.Index(t.made, from); i >= 0 {
		t.made = slices.Delete(t.made, i, i+1)
	}
	k := Kept{Name: name, URL: mysql.URLWithDatabase(t.dsn, name)}
	var err error
	k.Digest, err = mysql.Digest(ctx, t.admin, name)
	return k, err
}

func (t *mysqlTarget) close(ctx context.Context) error {
	var errs []error
	for _, d := range t.made {
		errs = append(errs, mysql.DropDatabase(context.WithoutCancel(ctx), t.admin, d))
	}
	t.made = nil
	return errors.Join(errs...)
}

func groupStmts(gs []group) [][]string {
	out := make([][]string, len(gs))
	for i, g := range gs {
		out[i] = g.stmts
	}
	return out
}

// appliedStmts lists the statements of the groups that applied, in order.
func appliedStmts(gs []group, applied []bool) []string {
	var out []string
	for i, g := range gs {
		if applied[i] {
			out = append(out, g.stmts...)
		}
	}
	return out
}

// openCandidate opens the sandboxed engine on a candidate for one screen and
// is closed after it: a catalog would keep every candidate's engine (a
// PostgreSQL pool each) open to the end. Starting the verifier's engines
// cost more than the screen on a small database (measured on the toy of
// the tests: about 320 ms against 80 ms for DuckDB, 300 ms against 70 ms
// for PostgreSQL), so a DuckDB candidate is read in-process rather than
// by worker processes (the screen runs the golds' mutants, which sqlgym
// writes, not model SQL), and a PostgreSQL candidate's engine skips the
// load calibration: a mutant that times out on a loaded server then counts
// as killed by this candidate, which only steers the choice of variants;
// the screen of the kept ones, on the verifier's own engines, decides the
// marks.
func openCandidate(ctx context.Context, url string) (sqlgym.Engine, error) {
	loc, err := engine.ParseURL(url)
	if err != nil {
		return nil, err
	}
	if loc.Dialect == sqlgym.DialectDuckDB {
		e, err := duckdb.Open(loc.Path, duckdb.Options{InProcess: true})
		if err != nil {
			return nil, err
		}
		return e, nil
	}
	if loc.Dialect == sqlgym.DialectPostgres {
		e, err := postgres.Open(ctx, loc.DSN, postgres.Options{Schema: loc.Schema, NoLoadRetry: true})
		if err != nil {
			return nil, err
		}
		return e, nil
	}
	return engine.OpenLocation(ctx, loc, engine.Options{})
}
