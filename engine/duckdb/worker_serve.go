package duckdb

import (
	"bufio"
	"context"
	"database/sql/driver"
	"encoding/gob"
	"errors"
	"fmt"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
	"unicode"

	duck "github.com/duckdb/duckdb-go/v2"
)

// workerEnv set to "1" turns the process into a DuckDB worker.
const workerEnv = "SQLGYM_DUCKDB_WORKER"

// MaybeServeWorker turns the process into a DuckDB worker when the engine
// started it as one (workerEnv set), and then never returns; otherwise it
// returns at once. Worker mode re-executes the running binary, so every
// binary that opens DuckDB engines calls this first: the sqlgym command
// through cli.Main, a server embedding sqlgym at the top of its main, and
// the test binary of every package whose tests open DuckDB engines in its
// TestMain (MaybeServeWorker(); os.Exit(m.Run())). It is an explicit call
// rather than an init function so that importing the package never
// changes what a process is. A binary that forgets it fails fast: the
// worker is started with -test.run=^$, so a test binary runs no test and
// exits, and the engine's error names this function.
func MaybeServeWorker() {
	if os.Getenv(workerEnv) != "1" {
		return
	}
	os.Exit(serveWorker(os.NewFile(3, "duckdb-requests"), os.NewFile(4, "duckdb-responses")))
}

// serveWorker reads a workerConfig, opens the database in-process under
// the sandbox, answers ready, then runs requests one at a time until the
// parent closes the pipe. It returns the exit code.
func serveWorker(in, out *os.File) int {
	if in == nil || out == nil {
		fmt.Fprintln(os.Stderr, "duckdb worker: descriptors 3 and 4 are not open")
		return 2
	}
	dec := gob.NewDecoder(bufio.NewReader(in))
	bw := bufio.NewWriter(out)
	enc := gob.NewEncoder(bw)
	send := func(r workerResponse) error {
		if err := enc.Encode(r); err != nil {
			return err
		}
		return bw.Flush()
	}
	fail := func(err error) int {
		_ = send(workerResponse{Err: toWire(err)})
		return 2
	}

	var cfg workerConfig
	if err := dec.Decode(&cfg); err != nil {
		fmt.Fprintf(os.Stderr, "duckdb worker: read config: %v\n", err)
		return 2
	}
	if err := setDataLimit(cfg.DataLimit); err != nil {
		return fail(fmt.Errorf("set the worker's memory cap: %w", err))
	}
	// The Go heap (results being converted and encoded) shares the cap
	// with DuckDB: collect harder well before the cap than fail at it.
	debug.SetMemoryLimit(WorkerHeadroom / 2)
	eng := &Engine{path: cfg.Path, opts: Options{
		MemoryLimit: cfg.MemoryLimit, Threads: cfg.Threads, PoolSize: 1, InProcess: true,
	}.withDefaults()}
	// One statement at a time on one DuckDB thread: the process's CPU time
	// is the statement's.
	if !cfg.WallClock {
		eng.clock = cpuClock
	}
	eng.catalog = cfg.Catalog
	ctx := context.Background()
	p, err := eng.handle(ctx)
	if err != nil {
		return fail(err)
	}
	eng.running.Done()
	for _, name := range cfg.UnsafeAllow {
		p.funcs.Table[name] = true
	}
	quick0, err := fingerprint(ctx, p, quickFingerprintSQL)
	if err != nil {
		return fail(fmt.Errorf("read the worker's state fingerprint: %w", err))
	}
	full0, err := fingerprint(ctx, p, fullFingerprintSQL)
	if err != nil {
		return fail(fmt.Errorf("read the worker's state fingerprint: %w", err))
	}
	if err := send(workerResponse{Catalog: p.funcs}); err != nil {
		return 2
	}

	// Requests are read on their own goroutine so that a parent that goes
	// away (its end of the pipe closes) ends the worker at once, even in
	// the middle of a statement DuckDB will not interrupt.
	reqs := make(chan workerRequest)
	go func() {
		for {
			var r workerRequest
			if err := dec.Decode(&r); err != nil {
				os.Exit(0)
			}
			reqs <- r
		}
	}()
	served := 0
	for r := range reqs {
		var resp workerResponse
		if r.Describe {
			s, err := eng.Describe(ctx)
			resp.Schema, resp.Err = s, toWire(err)
		} else {
			if cfg.CrashOn != "" && r.SQL == cfg.CrashOn {
				crashSelf()
			}
			res, err, abandoned := eng.queryInProcess(ctx, r.SQL, r.Limits)
			resp.Res, resp.Err, resp.Abandoned = res, toWire(err), abandoned
			resp.Recycle = fatalError(err)
		}
		served++
		// A worker that will stop after this answer says so, so the parent
		// does not put it back in the pool.
		resp.Recycle = resp.Recycle || served >= workerMaxStatements
		if err := send(resp); err != nil {
			return 2
		}
		if resp.Abandoned || resp.Recycle {
			// The runaway statement, or the broken instance, ends with the
			// process.
			return 0
		}
		// Whatever got past the gate must not reach the next statement: a
		// worker whose instance changed exits before it reads another
		// request, and the parent runs that one on a fresh worker. The
		// check runs after the answer is sent, so it never delays it. The
		// settings a statement could plausibly reach are read after every
		// statement (0.4 ms), all of them every fullFingerprintEvery (2 ms).
		want, q := quick0, quickFingerprintSQL
		if served%fullFingerprintEvery == 0 {
			want, q = full0, fullFingerprintSQL
		}
		if now, err := fingerprint(ctx, p, q); err != nil || now != want || served >= workerMaxStatements {
			return exitRecycled
		}
	}
	return 0
}

// exitRecycled is a worker's exit status when it stops itself because its
// instance changed or it has served its share: the parent retries a
// request it had already sent on a fresh worker, as nothing ran.
const exitRecycled = 3

// workerMaxStatements is how many statements a worker serves before it is
// replaced: state the fingerprint cannot see (the random seed, caches,
// fragmentation) lives no longer than that.
const workerMaxStatements = 2000

// quickFingerprintSQL reads the settings the functions refused by the gate
// would change (logging, profiling, the parser override) and the limits.
const quickFingerprintSQL = `SELECT concat_ws(';', current_setting('enable_logging'), current_setting('logging_storage'),
	current_setting('enabled_log_types'), current_setting('logging_level'), current_setting('logging_mode'),
	current_setting('enable_profiling'), current_setting('profiling_mode'), current_setting('profiling_output'),
	current_setting('allow_parser_override_extension'), current_setting('threads'), current_setting('memory_limit'),
	current_setting('enable_external_access'), current_setting('temp_directory'), current_setting('lock_configuration'))`

// fullFingerprintSQL sums up every setting and the session variables.
const fullFingerprintSQL = `SELECT md5(string_agg(name || '=' || coalesce(value, '<null>'), ';' ORDER BY name))
	|| ':' || (SELECT count(*) FROM duckdb_variables()) FROM duckdb_settings()`

// fullFingerprintEvery is how many statements pass between full checks.
const fullFingerprintEvery = 50

func fingerprint(ctx context.Context, p *pool, q string) (string, error) {
	l, err := p.acquire(ctx)
	if err != nil {
		return "", err
	}
	defer l.release()
	// Not a cached prepared statement: DuckDB folds current_setting into
	// a constant when it prepares, so a cached one would never see a
	// change.
	var out string
	err = queryRows(ctx, l.conn, q, 1, func(v []driver.Value) { out, _ = v[0].(string) })
	return out, err
}

// fatalError reports a DuckDB error after which the instance cannot be
// trusted: an internal error (a DuckDB bug) or a fatal one (DuckDB
// invalidates the database and fails every later statement).
//
// A DuckDB error's type decides, never its text: the text quotes the
// model's own identifiers and literals (`SELECT "FATAL Error"` fails
// with a binder error naming that column), and a message match would let
// any answer force a worker restart. Only an error DuckDB did not type
// is read, and then only its start, where DuckDB puts the type.
func fatalError(err error) bool {
	if err == nil {
		return false
	}
	// A failed allocation leaves the process near its RLIMIT_DATA with a
	// fragmented heap: an honest statement next in the same worker could
	// fail for want of 32 KiB (seen running the shared deep statements in a worker)
	// and be reported as the sandbox's failure. Such a worker is replaced.
	var de *duck.Error
	if errors.As(err, &de) {
		return de.Type == duck.ErrorTypeFatal || de.Type == duck.ErrorTypeInternal || de.Type == duck.ErrorTypeOutOfMemory
	}
	msg := err.Error()
	return strings.HasPrefix(msg, "INTERNAL Error") || strings.HasPrefix(msg, "FATAL Error") ||
		strings.Contains(msg, "Out of Memory Error") || strings.Contains(msg, "std::bad_alloc")
}

// parseSize reads a DuckDB memory size such as "1GB", "512 MiB" or
// "1.5gb": decimal units are powers of 1000, binary ones of 1024, as in
// DuckDB.
func parseSize(s string) (uint64, error) {
	t := strings.TrimSpace(s)
	i := strings.IndexFunc(t, func(r rune) bool { return !unicode.IsDigit(r) && r != '.' })
	num, unit := t, ""
	if i >= 0 {
		num, unit = t[:i], strings.ToLower(strings.TrimSpace(t[i:]))
	}
	n, err := strconv.ParseFloat(num, 64)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("cannot read %q as a size such as 1GB", s)
	}
	mult, ok := sizeUnits[unit]
	if !ok {
		return 0, fmt.Errorf("cannot read %q as a size: unknown unit %q", s, unit)
	}
	v := n * float64(mult)
	if v >= 1<<62 {
		return 0, errors.New("memory limit " + s + " is too large for a worker's memory cap")
	}
	return uint64(v), nil
}

var sizeUnits = map[string]uint64{
	"": 1, "b": 1, "byte": 1, "bytes": 1,
	"k": 1e3, "kb": 1e3, "m": 1e6, "mb": 1e6, "g": 1e9, "gb": 1e9, "t": 1e12, "tb": 1e12,
	"kib": 1 << 10, "mib": 1 << 20, "gib": 1 << 30, "tib": 1 << 40,
}
