package bench

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/url"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/sqlgym/sqlgym/engine/sqlite"
)

// floorRunner runs each of a batch's distinct statements once, reading
// every row, on some engine: the floor the verifier is measured against,
// since it too must run each distinct statement once. Implementations
// measure their own CPU time, because it is spent in this process or in
// children depending on the runner.
type floorRunner interface {
	// Name says what runs the statements, for the report.
	Name() string
	// Run executes every statement once. A statement's own error (the
	// batch's broken answers) is not an error of Run.
	Run(ctx context.Context, queries []string) (floorRun, error)
	Close() error
}

// floorRun is one timed pass over the statements.
type floorRun struct {
	Wall time.Duration
	CPU  time.Duration
}

// inProcessFloor runs statements with query on workers goroutines, as
// many as the verifier runs statements at once, so that the ratio
// measures the verifier's own work rather than parallelism. CPU time is
// this process's (RUSAGE_SELF). It fits any engine in this process: the
// sandboxed engine today, an in-process C SQLite connection later.
type inProcessFloor struct {
	name    string
	workers int
	query   func(ctx context.Context, sql string) error
	close   func() error
}

func (f *inProcessFloor) Name() string { return f.name }

func (f *inProcessFloor) Close() error {
	if f.close == nil {
		return nil
	}
	return f.close()
}

func (f *inProcessFloor) Run(ctx context.Context, queries []string) (floorRun, error) {
	cpu0, t0 := selfCPU(), time.Now()
	var wg sync.WaitGroup
	next := make(chan string)
	for w := 0; w < f.workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for q := range next {
				_ = f.query(ctx, q) // a broken answer's error is part of the floor's work
			}
		}()
	}
	for _, q := range queries {
		next <- q
	}
	close(next)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return floorRun{}, fmt.Errorf("%s: %w", f.name, err)
	}
	return floorRun{Wall: time.Since(t0), CPU: selfCPU() - cpu0}, nil
}

// cliFloor runs statements in the sqlite3 command-line shell: C SQLite,
// output discarded. The statements are dealt round-robin to one shell
// per worker, all started at once (runChildren).
type cliFloor struct {
	bin     string
	path    string
	workers int
}

// floorDone is what a sqlite3 shell prints once it has run everything.
const floorDone = "sqlgym-floor-done"

// newCLIFloor finds the sqlite3 shell on PATH; ok is false without one.
func newCLIFloor(path string, workers int) (f *cliFloor, ok bool) {
	bin, err := exec.LookPath("sqlite3")
	if err != nil {
		return nil, false
	}
	return &cliFloor{bin: bin, path: path, workers: workers}, true
}

func (f *cliFloor) Name() string { return "sqlite3 shell (" + f.bin + ")" }
func (f *cliFloor) Close() error { return nil }

func (f *cliFloor) Run(ctx context.Context, queries []string) (floorRun, error) {
	n := min(f.workers, len(queries))
	scripts := make([]strings.Builder, n)
	for i := range scripts {
		scripts[i].WriteString(".output /dev/null\n")
	}
	for i, q := range queries {
		s := &scripts[i%n]
		s.WriteString(strings.TrimRight(strings.TrimSpace(q), ";"))
		s.WriteString(";\n")
	}
	// Each shell ends by printing floorDone from the database, so a shell
	// that could not read it, or did not get to the end, is told apart
	// from one whose statements failed on purpose.
	for i := range scripts {
		scripts[i].WriteString(".output stdout\nSELECT '" + floorDone + "' FROM sqlite_schema LIMIT 1;\n")
	}
	// immutable=1 as the engine opens reference databases: no locking.
	uri := (&url.URL{Scheme: "file", Path: f.path, RawQuery: "immutable=1"}).String()
	in := make([]string, n)
	for i := range scripts {
		in[i] = scripts[i].String()
	}
	return runChildren(ctx, "sqlite3 shell", in, floorDone, func() *exec.Cmd {
		return exec.CommandContext(ctx, f.bin, "-batch", "-readonly", uri)
	})
}

// runChildren starts one child per input, all at once, each reading its
// input on stdin, and waits for them. CPU time is the children's own
// user plus system time from wait4's rusage (what RUSAGE_CHILDREN sums),
// taken per child so that other children, such as the load's burners,
// never count. A child that did not print done did not run to the end.
func runChildren(ctx context.Context, name string, inputs []string, done string, command func() *exec.Cmd) (floorRun, error) {
	n := len(inputs)
	cmds := make([]*exec.Cmd, n)
	errs := make([]bytes.Buffer, n)
	outs := make([]bytes.Buffer, n)
	t0 := time.Now()
	for i := range cmds {
		c := command()
		c.Stdin = strings.NewReader(inputs[i])
		c.Stdout, c.Stderr = &outs[i], &errs[i]
		if err := c.Start(); err != nil {
			for _, started := range cmds[:i] {
				_ = started.Process.Kill()
				_ = started.Wait()
			}
			return floorRun{}, fmt.Errorf("%s: %w", name, err)
		}
		cmds[i] = c
	}
	var cpu time.Duration
	var failed error
	for i, c := range cmds {
		// The shell exits 1 when a statement failed, which the batch's
		// broken answers do on purpose; only a child that did not run to
		// the end (killed, or no database) spoils the floor.
		err := c.Wait()
		st := c.ProcessState
		if st != nil {
			cpu += st.UserTime() + st.SystemTime()
		}
		if failed == nil && (st == nil || !st.Exited() || !strings.Contains(outs[i].String(), done)) {
			msg := strings.TrimSpace(errs[i].String())
			if k := strings.LastIndexByte(msg, '\n'); k >= 0 {
				msg = msg[k+1:] // the last error is the one that stopped it
			}
			if err != nil {
				failed = fmt.Errorf("%s %d did not run to the end (%w): %s", name, i+1, err, msg)
			} else {
				failed = fmt.Errorf("%s %d did not run to the end: %s", name, i+1, msg)
			}
		}
	}
	wall := time.Since(t0)
	if failed != nil {
		return floorRun{}, failed
	}
	return floorRun{Wall: wall, CPU: cpu}, nil
}

// newRawFloor is C SQLite on raw read-only connections, one per worker
// (a sqlite.Raw is not safe for concurrent use).
func newRawFloor(path string, workers int) (*inProcessFloor, error) {
	pool := make(chan *sqlite.Raw, workers)
	closeAll := func() error {
		var errs []error
		for len(pool) > 0 {
			errs = append(errs, (<-pool).Close())
		}
		return errors.Join(errs...)
	}
	for range workers {
		r, err := sqlite.OpenRaw(path)
		if err != nil {
			closeAll()
			return nil, err
		}
		pool <- r
	}
	return &inProcessFloor{
		name:    "C SQLite, in process",
		workers: workers,
		query: func(_ context.Context, q string) error {
			r := <-pool
			defer func() { pool <- r }()
			_, err := r.Count(q)
			return err
		},
		close: closeAll,
	}, nil
}
