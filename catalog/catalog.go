package catalog

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/engine"
	"github.com/sqlgym/sqlgym/internal/memo"
	"github.com/sqlgym/sqlgym/shopdb"
)

// ShopName is the name that always resolves to the built-in database,
// unless a --db flag names it explicitly.
const ShopName = shopdb.Name

// Catalog maps database names to locations and keeps their engines open.
type Catalog struct {
	refs  map[string]string
	dbDir string
	cache string
	opts  engine.Options
	// shopVariants makes Variants of the built-in shop its shipped
	// variant databases (Config.ShopVariants).
	shopVariants bool

	// engines opens each URL once and keeps only engines that opened: a
	// PostgreSQL that was down when first asked for is tried again by the
	// next caller.
	engines memo.Map[string, sqlgym.Engine]
	// shopVariantFiles are the shop's variant files, materialised once.
	shopVariantFiles memo.Map[string, []string]

	mu      sync.Mutex
	closed  bool
	opened  []sqlgym.Engine // every engine kept, for Close
	opening sync.WaitGroup  // opens in flight, which Close waits for
}

// openTimeout bounds one attempt to open a database. The attempt does not
// end with the caller that started it (other callers may wait for it), so
// it needs a bound of its own.
const openTimeout = 30 * time.Second

// errClosed is what a closed catalog answers.
var errClosed = errors.New("catalog closed")

// Config is how a command was told about its databases.
type Config struct {
	// Refs are NAME=URL pairs from repeated --db flags.
	Refs []string
	// DBDir is the --db-dir folder (BIRD and Spider layout).
	DBDir string
	// CacheDir overrides $SQLGYM_CACHE and the user cache dir.
	CacheDir string
	Engine   engine.Options
	// ShopVariants makes the built-in shop's variants (see
	// MaterializeShopVariants) what Variants returns for it: commands
	// given --variants set it.
	ShopVariants bool
}

// New checks the references and builds a catalog. No database is opened
// until it is used.
func New(cfg Config) (*Catalog, error) {
	c := &Catalog{refs: map[string]string{}, dbDir: cfg.DBDir, cache: cfg.CacheDir, opts: cfg.Engine, shopVariants: cfg.ShopVariants}
	for _, r := range cfg.Refs {
		name, url, ok := strings.Cut(r, "=")
		name = strings.TrimSpace(name)
		if !ok || name == "" || url == "" {
			return nil, sqlgym.Userf("write --db NAME=URL, e.g. --db shop=sqlite:shop.sqlite", "--db %q: not NAME=URL", r)
		}
		if _, err := engine.ParseURL(url); err != nil {
			return nil, fmt.Errorf("--db %s: %w", name, err)
		}
		if prev, dup := c.refs[name]; dup && prev != url {
			return nil, sqlgym.Userf("give each name one --db flag", "--db %s given twice (%s and %s)", name, prev, url)
		}
		c.refs[name] = url
	}
	if cfg.DBDir != "" {
		st, err := os.Stat(cfg.DBDir)
		if err != nil || !st.IsDir() {
			return nil, sqlgym.Userf("point --db-dir at the folder that holds NAME/NAME.sqlite (e.g. spider_dev/database)", "--db-dir %s: not a folder", cfg.DBDir)
		}
	}
	return c, nil
}

// Resolve returns the URL of a database name: an explicit --db first, then
// --db-dir's DIR/NAME/NAME.sqlite or DIR/NAME.sqlite, then the built-in
// shop. A name that is itself a database URL (sqlite:PATH, duckdb:PATH,
// postgres://...), as `sqlgym variants` writes into db_variants, is that
// URL; a PostgreSQL or MySQL one written without its password (as sqlgym writes
// them, issue 25) gets it again from withPassword.
func (c *Catalog) Resolve(name string) (string, error) {
	if u, ok := c.refs[name]; ok {
		return u, nil
	}
	if isURL(name) {
		loc, err := engine.ParseURL(name)
		if err != nil {
			return "", err
		}
		if loc.Dialect == sqlgym.DialectPostgres || loc.Dialect == sqlgym.DialectMySQL {
			loc.DSN = c.withPassword(loc.DSN)
		}
		return loc.String(), nil
	}
	if c.dbDir != "" {
		for _, p := range []string{
			filepath.Join(c.dbDir, name, name+".sqlite"),
			filepath.Join(c.dbDir, name+".sqlite"),
			filepath.Join(c.dbDir, name, name+".duckdb"),
			filepath.Join(c.dbDir, name+".duckdb"),
		} {
			if _, err := os.Stat(p); err == nil {
				loc, _ := engine.ParseURL(p)
				return loc.String(), nil
			}
		}
	}
	if name == ShopName {
		path, err := MaterializeShop(c.cache)
		if err != nil {
			return "", err
		}
		return "sqlite:" + path, nil
	}
	return "", c.unknown(name)
}

func isURL(s string) bool {
	for _, p := range []string{"sqlite:", "duckdb:", "postgres://", "postgresql://", "mysql://"} {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

func (c *Catalog) unknown(name string) error {
	known := make([]string, 0, len(c.refs)+1)
	for n := range c.refs {
		known = append(known, n)
	}
	known = append(known, ShopName)
	sort.Strings(known)
	if dir := c.deeperDBDir(name); dir != "" {
		return sqlgym.Userf("--db-dir is one level too high: pass --db-dir "+dir,
			"database %q is not in --db-dir %s but one folder further down, in %s", name, c.dbDir, dir)
	}
	hint := "name it with --db " + name + "=sqlite:PATH (or duckdb:PATH, postgres://..., mysql://...)"
	if c.dbDir != "" {
		hint += fmt.Sprintf(", or put it at %s", filepath.Join(c.dbDir, name, name+".sqlite"))
	} else {
		hint += ", or give --db-dir DIR holding DIR/" + name + "/" + name + ".sqlite"
	}
	return sqlgym.Userf(hint, "unknown database %q (known: %s)", name, strings.Join(known, ", "))
}

// deeperDBDir is the folder below --db-dir that holds name in the BIRD and
// Spider layout (DIR/SUB/NAME/NAME.sqlite or DIR/SUB/NAME.sqlite), the
// usual mistake of naming the dataset's folder rather than its databases'
// (spider_dev instead of spider_dev/database); "" when there is none.
func (c *Catalog) deeperDBDir(name string) string {
	if c.dbDir == "" {
		return ""
	}
	for _, ext := range []string{".sqlite", ".duckdb"} {
		for _, pat := range []string{filepath.Join(c.dbDir, "*", name, name+ext), filepath.Join(c.dbDir, "*", name+ext)} {
			m, _ := filepath.Glob(pat)
			if len(m) > 0 {
				sort.Strings(m)
				rel, _ := filepath.Rel(c.dbDir, m[0])
				return filepath.Join(c.dbDir, strings.Split(filepath.ToSlash(rel), "/")[0])
			}
		}
	}
	return ""
}

// Variants lists the database URLs a test-suite comparison runs on for a
// name: every *.sqlite file in the folder of the resolved SQLite file (the
// Spider test-suite layout), and every *.duckdb file beside a DuckDB file,
// the resolved database first, when that folder is named after the
// database. A PostgreSQL database's variant schemas are listed only by the
// tasks' db_variants, so here it has no variants but itself. The built-in shop has its shipped variants
// when the catalog was built with Config.ShopVariants.
func (c *Catalog) Variants(name string) ([]string, error) {
	u, err := c.Resolve(name)
	if err != nil {
		return nil, err
	}
	if name == ShopName && c.refs[name] == "" && c.shopVariants && strings.HasPrefix(u, "sqlite:") {
		// Built once per catalog (success only): every batch asks.
		paths, err := c.shopVariantFiles.Do(context.Background(), c.cache, func() ([]string, error) {
			return MaterializeShopVariants(c.cache)
		}, func(_ []string, err error) bool { return err == nil })
		if err != nil {
			return nil, err
		}
		out := []string{u}
		for _, p := range paths {
			out = append(out, "sqlite:"+p)
		}
		return out, nil
	}
	loc, err := engine.ParseURL(u)
	if err != nil || loc.Dialect == sqlgym.DialectPostgres || loc.Dialect == sqlgym.DialectMySQL || name == ShopName && c.refs[name] == "" {
		return []string{u}, err
	}
	dir := filepath.Dir(loc.Path)
	if filepath.Base(dir) != name {
		return []string{u}, nil
	}
	// A DuckDB database's variants are DuckDB files beside it, as
	// `sqlgym variants` writes them: DIR/NAME/NAME_vK.duckdb.
	ext := ".sqlite"
	if loc.Dialect == sqlgym.DialectDuckDB {
		ext = ".duckdb"
	}
	matches, _ := filepath.Glob(filepath.Join(dir, "*"+ext))
	sort.Strings(matches)
	out := []string{u}
	for _, m := range matches {
		if m != loc.Path {
			out = append(out, string(loc.Dialect)+":"+m)
		}
	}
	return out, nil
}

// TaskVariants is Variants for one task: the built-in shop's shipped set
// names, per task, the variants it is judged on (shopdb.VariantSet.Tasks).
// Every other database, and a shop task the set does not name, gets
// Variants(name).
func (c *Catalog) TaskVariants(name, task string) ([]string, error) {
	all, err := c.Variants(name)
	if err != nil || name != ShopName || len(all) < 2 || c.refs[name] != "" {
		return all, err
	}
	vs, err := shopdb.Variants()
	if err != nil {
		return nil, err
	}
	names, ok := vs.TaskVariants(task)
	if !ok {
		return all, nil
	}
	// all is the shop and then its variants in the set's order
	// (MaterializeShopVariants).
	urls := []string{all[0]}
	for i, v := range vs.Variants {
		if i+1 < len(all) && slices.Contains(names, v.Name) {
			urls = append(urls, all[i+1])
		}
	}
	return urls, nil
}

// Engine returns the open engine for a database name, opening it on first
// use. Every caller shares one engine (one pool) per database.
func (c *Catalog) Engine(ctx context.Context, name string) (sqlgym.Engine, error) {
	u, err := c.Resolve(name)
	if err != nil {
		return nil, err
	}
	return c.EngineURL(ctx, u)
}

// EngineURL is Engine for a database URL (a test-suite variant, say). A
// failure to open is returned to the callers waiting for that attempt and
// then forgotten: the next call tries again.
func (c *Catalog) EngineURL(ctx context.Context, url string) (sqlgym.Engine, error) {
	c.mu.Lock()
	closed := c.closed
	c.mu.Unlock()
	if closed {
		return nil, errClosed
	}
	return c.engines.Do(ctx, url, func() (sqlgym.Engine, error) { return c.openEngine(ctx, url) },
		func(eng sqlgym.Engine, err error) bool { return err == nil })
}

// openEngine opens one engine and records it for Close, unless Close came
// first: then the engine is closed at once, so none outlives the catalog.
func (c *Catalog) openEngine(ctx context.Context, url string) (sqlgym.Engine, error) {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil, errClosed
	}
	c.opening.Add(1)
	c.mu.Unlock()
	defer c.opening.Done()
	octx, cancel := context.WithTimeout(context.WithoutCancel(ctx), openTimeout)
	defer cancel()
	eng, err := engine.Open(octx, url, c.opts)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return nil, errors.Join(errClosed, eng.Close())
	}
	c.opened = append(c.opened, eng)
	return eng, nil
}

// Close closes every engine the catalog opened, after the opens in flight
// have ended. Calls after it fail.
func (c *Catalog) Close() error {
	c.mu.Lock()
	c.closed = true
	c.mu.Unlock()
	c.opening.Wait()
	c.mu.Lock()
	opened := c.opened
	c.opened = nil
	c.mu.Unlock()
	var errs []error
	for _, eng := range opened {
		errs = append(errs, eng.Close())
	}
	return errors.Join(errs...)
}
