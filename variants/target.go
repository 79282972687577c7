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
		ft := &fileTarget{d: loc.Dialect, name: g.name, src: loc.Path, orig: loc.Path, dir: dir, tmp: tmp}
		if loc.Dialect == sqlgym.DialectSQLite {
			own, err := ownTriggers(ctx, loc.Path)
			if err != nil {
				os.RemoveAll(tmp)
				return nil, err
			}
			ft.guards = newGuardFilter(g.guards(), g.schema, own)
		}
		return ft, nil
	case sqlgym.DialectPostgres:
		// The server cuts identifiers at 63 bytes: NAME_c12_t must fit, or
		// two candidates' schemas would be one.
		if long := fmt.Sprintf("%s_c%d_t", g.name, g.opt.Candidates); len(long) > 63 {
			return nil, sqlgym.Userf("give the database a shorter name in --db NAME=URL and in the tasks",
				"database name %q is too long for its variant schemas (%s is over PostgreSQL's 63 bytes)", g.name, long)
		}
		schema := loc.Schema
		if schema == "" {
			schema = g.opt.PostgresSchema
		}
		if schema == "" {
			schema = "public"
		}
		ops := &pgOps{dsn: loc.DSN, admin: g.opt.PostgresAdmin, orig: schema}
		if ops.admin == "" {
			ops.admin = loc.DSN
		}
		t := &serverTarget{name: g.name, orig: engine.WithSchema(loc.DSN, schema), ops: ops}
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
		ops := &mysqlOps{dsn: loc.DSN, admin: g.opt.MySQLAdmin}
		if ops.admin == "" {
			ops.admin = loc.DSN
		}
		t := &serverTarget{name: g.name, orig: loc.DSN, ops: ops}
		if err := t.prepare(ctx, g.opt.Replace); err != nil {
			return nil, err
		}
		cands, err := mysql.NewCandidates(ctx, ops.admin, mysql.URLDatabase(loc.DSN), loc.DSN)
		if err != nil {
			return nil, err
		}
		ops.cands = cands
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
	// (sqliteGuards), given to each build as its statements need them.
	guards *guardFilter
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

// serverTarget is a database on a server: candidates are namespaces
// NAME_cK (trial copies NAME_cK_t) beside the original's on the same
// server, made and changed with an administrator's account and read, as
// the verifier reads them, with the database's own (reader) account; a
// kept one is renamed NAME_vK. The namespaces are PostgreSQL's schemas or
// MySQL's databases (see serverOps).
type serverTarget struct {
	name string
	orig string // the original's URL, read by the reader
	ops  serverOps
	made []string
}

// serverOps is what a serverTarget does on its server, as the
// administrator; a namespace is a schema or a database.
type serverOps interface {
	dialect() sqlgym.Dialect
	// what names the namespaces in errors: "postgres schemas".
	what() string
	digest(ctx context.Context, ns string) (string, error)
	list(ctx context.Context, pattern string) ([]string, error)
	drop(ctx context.Context, ns string) error
	// build makes namespace ns the original with the groups applied, each
	// all or nothing.
	build(ctx context.Context, ns string, groups [][]string) ([]bool, error)
	rename(ctx context.Context, from, to string) error
	// url is the reader's URL of namespace ns, nsOf its inverse.
	url(ns string) string
	nsOf(url string) string
	close() error
}

func (t *serverTarget) dialect() sqlgym.Dialect { return t.ops.dialect() }

func (t *serverTarget) digest(ctx context.Context) (string, error) {
	return t.ops.digest(ctx, t.ops.nsOf(t.orig))
}

// prepare refuses to run over variant or candidate namespaces of this
// name left by an earlier run, or drops them when replace.
func (t *serverTarget) prepare(ctx context.Context, replace bool) error {
	return dropLeftovers(ctx, t.name, t.ops.what(), replace, t.ops.list, t.ops.drop)
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

func (t *serverTarget) build(ctx context.Context, idx int, trial bool, gs []group) (string, []string, error) {
	ns := fmt.Sprintf("%s_c%d", t.name, idx)
	if trial {
		ns += "_t"
	}
	if !slices.Contains(t.made, ns) {
		t.made = append(t.made, ns)
	}
	applied, err := t.ops.build(ctx, ns, groupStmts(gs))
	if err != nil {
		return "", nil, err
	}
	return t.ops.url(ns), appliedStmts(gs, applied), nil
}

func (t *serverTarget) golds(ctx context.Context, url string, golds []string, lim sqlgym.Limits) (map[string]goldState, error) {
	return checkGoldsURL(ctx, url, golds, lim)
}

func (t *serverTarget) original(context.Context) (string, error) { return t.orig, nil }

func (t *serverTarget) keep(ctx context.Context, url, name string) (Kept, error) {
	from := t.ops.nsOf(url)
	if err := t.ops.rename(ctx, from, name); err != nil {
		return Kept{}, fmt.Errorf("write variant: %w", err)
	}
	if i := slices.Index(t.made, from); i >= 0 {
		t.made = slices.Delete(t.made, i, i+1)
	}
	k := Kept{Name: name, URL: t.ops.url(name)}
	var err error
	k.Digest, err = t.ops.digest(ctx, name)
	return k, err
}

func (t *serverTarget) close(ctx context.Context) error {
	var errs []error
	for _, ns := range t.made {
		errs = append(errs, t.ops.drop(context.WithoutCancel(ctx), ns))
	}
	t.made = nil
	return errors.Join(append(errs, t.ops.close())...)
}

// pgOps are a PostgreSQL database's schemas.
type pgOps struct {
	dsn   string // the reader's, without schema=
	admin string // a role that may create schemas
	orig  string // the original's schema
}

func (o *pgOps) dialect() sqlgym.Dialect { return sqlgym.DialectPostgres }
func (o *pgOps) what() string            { return "postgres schemas" }
func (o *pgOps) digest(ctx context.Context, s string) (string, error) {
	return postgres.Digest(ctx, o.admin, s)
}
func (o *pgOps) list(ctx context.Context, pattern string) ([]string, error) {
	return postgres.SchemasLike(ctx, o.admin, pattern)
}
func (o *pgOps) drop(ctx context.Context, s string) error {
	return postgres.DropSchema(ctx, o.admin, s)
}
func (o *pgOps) build(ctx context.Context, s string, groups [][]string) ([]bool, error) {
	if err := postgres.DropSchema(ctx, o.admin, s); err != nil {
		return nil, err
	}
	if err := postgres.CopySchema(ctx, o.admin, o.orig, s, postgres.DSNUser(o.dsn)); err != nil {
		return nil, err
	}
	return postgres.EditSchema(ctx, o.admin, s, groups)
}
func (o *pgOps) rename(ctx context.Context, from, to string) error {
	return postgres.RenameSchema(ctx, o.admin, from, to)
}
func (o *pgOps) url(s string) string { return engine.WithSchema(o.dsn, s) }
func (o *pgOps) nsOf(url string) string {
	loc, _ := engine.ParseURL(url)
	return loc.Schema
}
func (o *pgOps) close() error { return nil }

// mysqlRowID is the column that names a row in a MySQL candidate while
// it is edited (see mysql.Candidates).
const mysqlRowID = mysql.RowID

// mysqlOps are the databases of a MySQL or MariaDB server, the reader's
// account granted SELECT on each.
type mysqlOps struct {
	dsn   string // the reader's mysql:// URL
	admin string // an account that may create databases and grant SELECT
	cands *mysql.Candidates
}

func (o *mysqlOps) dialect() sqlgym.Dialect { return sqlgym.DialectMySQL }
func (o *mysqlOps) what() string            { return "mysql databases" }
func (o *mysqlOps) digest(ctx context.Context, d string) (string, error) {
	return mysql.Digest(ctx, o.admin, d)
}
func (o *mysqlOps) list(ctx context.Context, pattern string) ([]string, error) {
	return mysql.DatabasesLike(ctx, o.admin, pattern)
}
func (o *mysqlOps) drop(ctx context.Context, d string) error {
	if o.cands != nil {
		return o.cands.Drop(ctx, d)
	}
	return mysql.DropDatabase(ctx, o.admin, d)
}
func (o *mysqlOps) build(ctx context.Context, d string, groups [][]string) ([]bool, error) {
	return o.cands.Build(ctx, d, groups)
}
func (o *mysqlOps) rename(ctx context.Context, from, to string) error {
	return o.cands.Keep(ctx, from, to)
}
func (o *mysqlOps) url(d string) string    { return mysql.URLWithDatabase(o.dsn, d) }
func (o *mysqlOps) nsOf(url string) string { return mysql.URLDatabase(url) }
func (o *mysqlOps) close() error {
	if o.cands == nil {
		return nil
	}
	return o.cands.Close()
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
