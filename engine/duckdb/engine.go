package duckdb

import (
	"bytes"
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"

	duck "github.com/duckdb/duckdb-go/v2"

	"github.com/sqlgym/sqlgym"
)

// Options tune an Engine. Zero fields take the defaults.
type Options struct {
	// MemoryLimit is DuckDB's memory_limit ("512MiB" when empty). Results
	// never spill to disk: past the limit a statement fails. In worker mode
	// (the default on Linux) every worker process is its own DuckDB
	// instance, so the limit holds per worker, that is per running
	// statement, and the worker's whole data segment is capped at the limit
	// plus WorkerHeadroom (RLIMIT_DATA). In-process, it is shared by every
	// statement on the database.
	MemoryLimit string
	// Threads is DuckDB's worker thread count (1 when zero). The verifier
	// runs many statements side by side, one per pooled connection, so more
	// threads per statement mostly add contention.
	Threads int
	// PoolSize is the most connections, hence statements, running at once
	// (max(4, GOMAXPROCS) when zero). In worker mode it is the most worker
	// processes.
	PoolSize int
	// InProcess runs DuckDB inside this process instead of in worker
	// processes. DuckDB then cannot be stopped in the parts of its work
	// that ignore interrupts, nor held to a hard memory cap (see
	// docs/sandbox-duckdb.md); it is for tests and for platforms other than
	// Linux, where it is the only mode.
	InProcess bool
	// WallClockTimeout makes Limits.Timeout wall-clock time in worker mode
	// too. By default a worker holds a statement to Timeout of CPU time,
	// which depends far less on the machine's load (see
	// docs/sandbox-duckdb.md); in-process, Timeout is always wall-clock
	// time.
	WallClockTimeout bool

	// unsafeAllow names table functions the gate lets through: for tests
	// of the worker's state check only.
	unsafeAllow []string
	// crashOn is a statement text on which a worker crashes itself: for
	// tests of crash handling only.
	crashOn string
}

// Defaults for Options.
const (
	// DefaultMemoryLimit with WorkerHeadroom keeps a worker's whole data
	// segment at 912 MiB, and with the binary's resident code its peak
	// RSS under 1 GiB whatever the statement does.
	DefaultMemoryLimit = "512MiB"
	DefaultThreads     = 1
)

func (o Options) withDefaults() Options {
	if o.MemoryLimit == "" {
		o.MemoryLimit = DefaultMemoryLimit
	}
	if o.Threads <= 0 {
		o.Threads = DefaultThreads
	}
	if o.PoolSize <= 0 {
		o.PoolSize = max(4, runtime.GOMAXPROCS(0))
	}
	return o
}

// Engine runs sandboxed statements on one DuckDB file. DuckDB itself is
// opened on the first query, because opening costs tens of milliseconds and
// most runs never touch a DuckDB database.
type Engine struct {
	path string
	opts Options

	// clock decides timeouts in queryInProcess: wallClock unless set (a
	// worker process sets cpuClock).
	clock statementClock
	// catalog, when set, is the function catalog to use instead of reading
	// it (a worker gets it from the parent).
	catalog *funcCatalog

	mu     sync.Mutex
	pool   *pool       // in-process mode
	procs  *workerPool // worker mode
	closed bool
	// running counts statements still executing, including ones whose
	// caller already got ErrTimeout; Close waits for them.
	running sync.WaitGroup
}

var _ sqlgym.Engine = (*Engine)(nil)

// duckMagic sits at byte 8 of every DuckDB database file.
var duckMagic = []byte("DUCK")

// Open checks that path is an existing DuckDB file and returns an engine
// for it. It never creates a database.
func Open(path string, opts Options) (*Engine, error) {
	if err := checkFile(path); err != nil {
		return nil, err
	}
	// The path travels in a DSN whose query string carries the sandbox
	// settings; these characters would let part of the path be read as
	// settings or drop them, so such a path is refused.
	if strings.ContainsAny(path, "?#%") {
		return nil, sqlgym.Userf("rename or link the file to a path without '?', '#' or '%'",
			"duckdb database %s: the path contains '?', '#' or '%%', which the DuckDB driver cannot take", path)
	}
	return &Engine{path: path, opts: opts.withDefaults()}, nil
}

func checkFile(path string) error {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return sqlgym.Userf("give the path of an existing DuckDB file: sqlgym never creates one to query it",
			"duckdb database %s does not exist", path)
	}
	if err != nil {
		return fmt.Errorf("open duckdb database: %w", err)
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.IsDir() {
		return sqlgym.Userf("give the path of a DuckDB file", "duckdb database %s is a directory", path)
	}
	head := make([]byte, 12)
	if _, err := io.ReadFull(f, head); err != nil || !bytes.Equal(head[8:12], duckMagic) {
		return sqlgym.Userf("give the path of a DuckDB database file (sqlite:PATH for SQLite files)",
			"%s is not a DuckDB database file", path)
	}
	return nil
}

// Dialect is DuckDB.
func (e *Engine) Dialect() sqlgym.Dialect { return sqlgym.DialectDuckDB }

// Path is the database file the engine reads.
func (e *Engine) Path() string { return e.path }

// useWorkers reports whether statements run in worker processes.
func (e *Engine) useWorkers() bool { return workersSupported && !e.opts.InProcess }

// sandboxSettings are DuckDB's startup settings that make the sandbox.
// DuckDB applies them all before the database accepts a statement; lockSQL
// then pins the time zone and locks the configuration, after which any
// SET, RESET or PRAGMA that would change a setting is refused.
// lockAndVerify checks it all took effect.
func (e *Engine) sandboxSettings() url.Values {
	v := url.Values{}
	v.Set("access_mode", "READ_ONLY")
	// enable_external_access is turned off by lockSQL instead: DuckDB
	// refuses temp_directory once it is off, and the driver applies these
	// settings in random order.
	v.Set("autoinstall_known_extensions", "false")
	v.Set("autoload_known_extensions", "false")
	v.Set("allow_community_extensions", "false")
	v.Set("allow_unsigned_extensions", "false")
	v.Set("allow_persistent_secrets", "false")
	v.Set("memory_limit", e.opts.MemoryLimit)
	// No spilling: a statement past the memory limit fails instead of
	// writing temporary files. max_temp_directory_size=0B alone does not
	// do it (DuckDB 1.5 still creates <db>.tmp/ and sorts into it); with
	// no temporary directory at all, DuckDB has nowhere to offload to.
	v.Set("temp_directory", "")
	v.Set("max_temp_directory_size", "0B")
	v.Set("threads", strconv.Itoa(e.opts.Threads))
	return v
}

// lockSQL runs once, on the first connection, before any model SQL. The
// time zone is an ICU setting DuckDB does not take at startup; pinning it
// makes time-zone-dependent functions answer alike on every machine. The
// lock comes last so nothing after it can change a setting.
var lockSQL = []string{
	"SET GLOBAL enable_external_access = false",
	"SET GLOBAL TimeZone = 'UTC'",
	"SET GLOBAL lock_configuration = true",
}

// handle returns the connection pool, opening the database on first use,
// and counts a running statement that the caller must end with
// e.running.Done.
func (e *Engine) handle(ctx context.Context) (*pool, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return nil, &sqlgym.InfraError{Err: errors.New("duckdb engine is closed")}
	}
	if e.pool == nil {
		p, err := e.open(ctx)
		if err != nil {
			return nil, &sqlgym.InfraError{Err: err}
		}
		e.pool = p
	}
	e.running.Add(1)
	return e.pool, nil
}

func (e *Engine) open(ctx context.Context) (*pool, error) {
	// The file may have gone since Open; DuckDB would create a new one.
	if err := checkFile(e.path); err != nil {
		return nil, err
	}
	c, err := duck.NewConnector(e.path+"?"+e.sandboxSettings().Encode(), nil)
	if err != nil {
		return nil, fmt.Errorf("open duckdb database %s: %w", e.path, err)
	}
	p := newPool(c, e.opts.PoolSize)
	if err := lockAndVerify(ctx, p); err != nil {
		p.close()
		return nil, fmt.Errorf("duckdb database %s: %w", e.path, err)
	}
	if err := readCatalog(ctx, p, e.catalog); err != nil {
		p.close()
		return nil, fmt.Errorf("duckdb database %s: %w", e.path, err)
	}
	return p, nil
}

// lockAndVerify runs lockSQL, then reads back the settings that matter
// most, so a driver that silently dropped one fails closed instead of
// running SQL unguarded.
func lockAndVerify(ctx context.Context, p *pool) error {
	l, err := p.acquire(ctx)
	if err != nil {
		return err
	}
	defer l.release()
	for _, q := range lockSQL {
		if _, err := l.conn.ExecContext(ctx, q, nil); err != nil {
			// The driver shares one DuckDB instance among connectors of the
			// same file and settings: another Engine on this file locked it
			// already, and the check below still has the last word.
			if strings.Contains(err.Error(), "configuration has been locked") {
				break
			}
			return fmt.Errorf("%s: %w", q, err)
		}
	}
	want := map[string]string{
		"access_mode":                  "read_only",
		"enable_external_access":       "false",
		"autoload_known_extensions":    "false",
		"autoinstall_known_extensions": "false",
		"lock_configuration":           "true",
		"timezone":                     "utc",
		"temp_directory":               "",
		"max_temp_directory_size":      "0 bytes",
	}
	rows, err := l.conn.QueryContext(ctx, `SELECT lower(name), lower(value) FROM duckdb_settings() WHERE lower(name) IN
		('access_mode', 'enable_external_access', 'autoload_known_extensions', 'autoinstall_known_extensions',
		 'lock_configuration', 'timezone', 'temp_directory', 'max_temp_directory_size')`, nil)
	if err != nil {
		return fmt.Errorf("read sandbox settings: %w", err)
	}
	defer rows.Close()
	got := map[string]string{}
	dst := make([]driver.Value, 2)
	for {
		err := rows.Next(dst)
		if err == io.EOF {
			break
		}
		if err != nil {
			return fmt.Errorf("read sandbox settings: %w", err)
		}
		name, _ := dst[0].(string)
		value, _ := dst[1].(string)
		got[name] = value
	}
	for name, v := range want {
		if got[name] != v {
			return fmt.Errorf("sandbox setting %s is %q, want %q: refusing to run SQL", name, got[name], v)
		}
	}
	return nil
}

// readCatalog loads the function catalog the gate checks against, on a
// fresh connection, before any model SQL, unless the engine was given one
// (a worker gets its engine's from the parent).
func readCatalog(ctx context.Context, p *pool, given *funcCatalog) error {
	if given != nil {
		p.funcs = given
		return nil
	}
	l, err := p.acquire(ctx)
	if err != nil {
		return err
	}
	defer l.release()
	p.funcs, err = loadFunctions(ctx, l.conn)
	return err
}

// Close waits for running statements (in-process, also ones already
// reported as timed out; a worker running those was killed), then closes
// the database and ends the workers. Queries after Close fail with an
// *sqlgym.InfraError.
func (e *Engine) Close() error {
	e.mu.Lock()
	if e.closed {
		e.mu.Unlock()
		return nil
	}
	e.closed = true
	p, wp := e.pool, e.procs
	e.mu.Unlock()
	e.running.Wait()
	if wp != nil {
		wp.close()
	}
	if p == nil {
		return nil
	}
	if err := p.close(); err != nil {
		return fmt.Errorf("close duckdb database %s: %w", e.path, err)
	}
	return nil
}
