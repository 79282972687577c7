package duckdb

import (
	"bufio"
	"context"
	"encoding/gob"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sqlgym/sqlgym"
)

// Worker mode: every statement runs in a child process, the binary itself
// re-executed with workerEnv set, which serves one DuckDB database over a
// pair of pipes (see worker_serve.go). DuckDB does not check for interrupts
// while it folds constant expressions at plan time, nor count that memory
// against memory_limit; only a process can be killed in the middle of
// such work and hand all its memory back, and only a process can have a
// hard memory cap (RLIMIT_DATA) without risking the caller.

// WorkerHeadroom is what a worker may use on top of MemoryLimit: the Go
// runtime, DuckDB's code and catalog, and the result being converted and
// sent (up to Limits.MaxBytes, a few times over while it is encoded).
// An idle worker maps about 150 MB of it; a result at the default
// MaxBytes (64 MB) needs about as much again while it is converted and
// encoded.
const WorkerHeadroom = 400 << 20

// workerStartTimeout bounds a worker's exec, DuckDB open and sandbox check.
const workerStartTimeout = 30 * time.Second

// workerSlack is how long, past the worker's own time limit and grace, the
// parent waits for its answer before killing it: the worker times the
// statement from when it reads the request, and the answer has to cross a
// pipe on a possibly loaded machine.
func workerSlack(timeout time.Duration) time.Duration {
	return min(timeoutGrace, timeout/10) + min(100*time.Millisecond, timeout/4)
}

// workerConfig is the first message a worker reads: what to open and how.
type workerConfig struct {
	Path        string
	MemoryLimit string
	Threads     int
	DataLimit   uint64 // RLIMIT_DATA in bytes
	// WallClock makes Limits.Timeout wall-clock time instead of CPU time.
	WallClock bool
	// UnsafeAllow are table functions the gate admits (tests only).
	UnsafeAllow []string
	// CrashOn is a statement on which the worker crashes (tests only).
	CrashOn string
	// Catalog is the function catalog an earlier worker of the engine read,
	// so that this one need not; nil for the first.
	Catalog *funcCatalog
}

// workerRequest is one statement, or a Describe when Describe is set.
type workerRequest struct {
	Describe bool
	SQL      string
	Limits   sqlgym.Limits
}

// workerResponse answers the config (ready, or why the database could not
// be opened) and each request.
type workerResponse struct {
	Res    *sqlgym.ResultSet
	Schema *sqlgym.Schema
	Err    *wireError
	// Abandoned says the statement is still running in the worker, which
	// exits after answering; the parent kills it as well.
	Abandoned bool
	// Recycle says the worker exits after this answer: its DuckDB
	// instance may have changed (its state fingerprint moved, DuckDB
	// reported an internal or fatal error) or it has served its share of
	// statements. The parent replaces it.
	Recycle bool
	// Catalog, in the answer to the config, is the function catalog the
	// worker's instance uses.
	Catalog *funcCatalog
}

// wireError carries an error's identity across the pipe: errors.Is and
// errors.As must keep working on the parent's side.
type wireError struct {
	Code wireCode
	Kind sqlgym.ErrorKind
	Msg  string // ExecError.Msg
	Text string // Error()
}

type wireCode uint8

const (
	wireOther wireCode = iota
	wireExec
	wireTimeout
	wireTooLarge
	wireInfra
	wireCanceled
	wireDeadline
)

func toWire(err error) *wireError {
	if err == nil {
		return nil
	}
	w := &wireError{Text: err.Error()}
	var ee *sqlgym.ExecError
	switch {
	case errors.As(err, &ee):
		w.Code, w.Kind, w.Msg = wireExec, ee.Kind, ee.Msg
	case errors.Is(err, sqlgym.ErrTimeout):
		w.Code = wireTimeout
	case errors.Is(err, sqlgym.ErrTooLarge):
		w.Code = wireTooLarge
	case sqlgym.IsInfra(err):
		w.Code = wireInfra
	case errors.Is(err, context.Canceled):
		w.Code = wireCanceled
	case errors.Is(err, context.DeadlineExceeded):
		w.Code = wireDeadline
	}
	return w
}

// remoteError is an error from the worker that wraps a sentinel.
type remoteError struct {
	text string
	is   error
}

func (e *remoteError) Error() string { return e.text }
func (e *remoteError) Unwrap() error { return e.is }

func (w *wireError) err() error {
	switch w.Code {
	case wireExec:
		return &sqlgym.ExecError{Kind: w.Kind, Msg: w.Msg}
	case wireTimeout:
		return &remoteError{w.Text, sqlgym.ErrTimeout}
	case wireTooLarge:
		return &remoteError{w.Text, sqlgym.ErrTooLarge}
	case wireInfra:
		return &sqlgym.InfraError{Err: errors.New(strings.TrimPrefix(w.Text, "database unavailable: "))}
	case wireCanceled:
		return &remoteError{w.Text, context.Canceled}
	case wireDeadline:
		return &remoteError{w.Text, context.DeadlineExceeded}
	}
	return errors.New(w.Text)
}

// worker is one child process serving the database.
type worker struct {
	cmd    *exec.Cmd
	req    *os.File // requests, parent's end
	resp   *os.File // responses, parent's end
	bw     *bufio.Writer
	enc    *gob.Encoder
	dec    *gob.Decoder
	stderr *tailBuffer

	killed atomic.Bool
	// catalog is the function catalog the worker reported when ready.
	catalog *funcCatalog
	// exited is closed once the process is reaped; waitErr is then set.
	exited  chan struct{}
	waitErr error
}

// reply is a response or the reason there is none.
type reply struct {
	resp workerResponse
	err  error
}

// roundTrip sends msg and reads the answer on its own goroutine, so that
// the caller can give up waiting and kill the worker.
func (w *worker) roundTrip(msg any) <-chan reply {
	ch := make(chan reply, 1)
	go func() {
		if err := w.enc.Encode(msg); err != nil {
			ch <- reply{err: fmt.Errorf("send to duckdb worker: %w", err)}
			return
		}
		if err := w.bw.Flush(); err != nil {
			ch <- reply{err: fmt.Errorf("send to duckdb worker: %w", err)}
			return
		}
		// A fresh value each time: gob leaves fields absent from the
		// message untouched.
		var r workerResponse
		if err := w.dec.Decode(&r); err != nil {
			ch <- reply{err: fmt.Errorf("read from duckdb worker: %w", err)}
			return
		}
		ch <- reply{resp: r}
	}()
	return ch
}

// kill stops the worker at once; the kernel takes its memory back even
// before it is reaped.
func (w *worker) kill() {
	w.killed.Store(true)
	_ = w.cmd.Process.Kill()
}

func (w *worker) alive() bool {
	select {
	case <-w.exited:
		return false
	default:
		return true
	}
}

// death describes how the worker ended, once it has, for an error message.
func (w *worker) death() string {
	select {
	case <-w.exited:
	case <-time.After(2 * time.Second):
		return "it stopped answering"
	}
	// A worker only exits cleanly when its parent closes the pipe: a clean
	// exit before that is a binary that never became a worker.
	msg := "it exited without serving: call duckdb.MaybeServeWorker first in this binary's main (in TestMain for a test binary)"
	if w.waitErr != nil {
		msg = w.waitErr.Error()
	}
	if tail := strings.TrimSpace(w.stderr.String()); tail != "" {
		msg += ": " + tail
	}
	return msg
}

// workerEnvKeep are the variables a worker inherits; the rest of the
// environment (credentials of a reward server, say) stays out of it.
var workerEnvKeep = []string{"HOME", "TMPDIR", "TZ", "LANG", "GODEBUG", "GOTRACEBACK", "GOMAXPROCS", "GOGC", "GORACE", "GOCOVERDIR"}

// startWorker runs a worker and waits until it has opened and checked the
// database.
func startWorker(ctx context.Context, cfg workerConfig) (*worker, error) {
	exe, err := workerExecutable()
	if err != nil {
		return nil, err
	}
	reqR, reqW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("duckdb worker: %w", err)
	}
	respR, respW, err := os.Pipe()
	if err != nil {
		reqR.Close()
		reqW.Close()
		return nil, fmt.Errorf("duckdb worker: %w", err)
	}
	cmd := exec.Command(exe)
	// The name says what the process is in ps. -test.run=^$ makes a test
	// binary without MaybeServeWorker in its TestMain run no test and exit
	// (instead of running the whole suite again); a binary that does call
	// it never reads its arguments.
	cmd.Args = []string{"sqlgym-duckdb-worker", "-test.run=^$"}
	cmd.Env = []string{workerEnv + "=1"}
	for _, k := range workerEnvKeep {
		if v, ok := os.LookupEnv(k); ok {
			cmd.Env = append(cmd.Env, k+"="+v)
		}
	}
	// Fixed descriptors 3 and 4 rather than stdin and stdout: nothing
	// DuckDB or a library prints can then corrupt the protocol.
	cmd.ExtraFiles = []*os.File{reqR, respW}
	w := &worker{cmd: cmd, req: reqW, resp: respR, stderr: &tailBuffer{max: 2048}, exited: make(chan struct{})}
	cmd.Stderr = w.stderr
	err = cmd.Start()
	reqR.Close()
	respW.Close()
	if err != nil {
		reqW.Close()
		respR.Close()
		return nil, fmt.Errorf("start duckdb worker %s: %w", exe, err)
	}
	go func() {
		w.waitErr = cmd.Wait()
		w.req.Close()
		w.resp.Close()
		close(w.exited)
	}()
	w.bw = bufio.NewWriter(reqW)
	w.enc = gob.NewEncoder(w.bw)
	w.dec = gob.NewDecoder(bufio.NewReader(respR))

	timer := time.NewTimer(workerStartTimeout)
	defer timer.Stop()
	select {
	case r := <-w.roundTrip(cfg):
		if r.err != nil {
			w.kill()
			return nil, fmt.Errorf("duckdb worker did not start: %s", w.death())
		}
		if r.resp.Err != nil {
			w.kill()
			return nil, fmt.Errorf("duckdb worker: %w", r.resp.Err.err())
		}
		w.catalog = r.resp.Catalog
		return w, nil
	case <-ctx.Done():
		w.kill()
		return nil, ctx.Err()
	case <-timer.C:
		w.kill()
		return nil, fmt.Errorf("duckdb worker did not start within %s", workerStartTimeout)
	}
}

// workerPool keeps the worker processes of one engine: at most size busy
// or idle at once, each running one statement at a time.
type workerPool struct {
	cfg   workerConfig
	slots chan struct{}

	mu     sync.Mutex
	idle   []*worker
	live   map[*worker]struct{}
	closed bool
	// refills counts replacements being started in the background.
	refills sync.WaitGroup
}

func newWorkerPool(cfg workerConfig, size int) *workerPool {
	return &workerPool{cfg: cfg, slots: make(chan struct{}, size), live: map[*worker]struct{}{}}
}

// acquire takes a slot and an idle worker, or starts one; an error is the
// infrastructure's (or ctx's) fault.
func (p *workerPool) acquire(ctx context.Context) (*worker, error) {
	select {
	case p.slots <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	for {
		p.mu.Lock()
		if p.closed {
			p.mu.Unlock()
			<-p.slots
			return nil, errors.New("duckdb engine is closed")
		}
		var w *worker
		if n := len(p.idle); n > 0 {
			w, p.idle = p.idle[n-1], p.idle[:n-1]
		}
		p.mu.Unlock()
		if w == nil {
			break
		}
		// One that died while idle (the OOM killer, an operator) is not
		// the next statement's fault.
		if w.alive() {
			return w, nil
		}
		p.forget(w)
	}
	w, err := p.start(ctx)
	if err != nil {
		<-p.slots
		return nil, err
	}
	p.mu.Lock()
	p.live[w] = struct{}{}
	p.mu.Unlock()
	return w, nil
}

// start starts a worker with the engine's configuration and keeps the
// function catalog the first one read, for the next ones.
func (p *workerPool) start(ctx context.Context) (*worker, error) {
	p.mu.Lock()
	cfg := p.cfg
	p.mu.Unlock()
	w, err := startWorker(ctx, cfg)
	if err != nil {
		return nil, err
	}
	p.mu.Lock()
	if p.cfg.Catalog == nil && w.catalog != nil {
		p.cfg.Catalog = w.catalog
	}
	p.mu.Unlock()
	return w, nil
}

// release puts a worker whose statement has ended back.
func (p *workerPool) release(w *worker) {
	p.mu.Lock()
	// A refill may have raced a start in acquire: keep at most size.
	drop := p.closed || len(p.live) > cap(p.slots)
	if !drop {
		p.idle = append(p.idle, w)
	}
	p.mu.Unlock()
	<-p.slots
	if drop {
		p.shutdown(w)
	}
}

// discard kills a worker and frees its slot; the next statement starts a
// fresh one.
func (p *workerPool) discard(w *worker) {
	w.kill()
	p.forget(w)
	<-p.slots
	p.refill()
}

// refill starts a replacement for a killed worker in the background, so
// that the statement after a timeout does not wait for a process start.
// A replacement that fails to start is dropped: the next acquire starts
// one itself and reports the error.
func (p *workerPool) refill() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed || len(p.live) >= cap(p.slots) {
		return
	}
	p.refills.Go(func() {
		w, err := p.start(context.Background())
		if err != nil {
			return
		}
		p.mu.Lock()
		keep := !p.closed && len(p.live) < cap(p.slots)
		if keep {
			p.live[w] = struct{}{}
			p.idle = append(p.idle, w)
		}
		p.mu.Unlock()
		if !keep {
			p.shutdown(w)
		}
	})
}

func (p *workerPool) forget(w *worker) {
	p.mu.Lock()
	delete(p.live, w)
	p.mu.Unlock()
}

// shutdown ends an idle worker: closing its requests lets it exit on its
// own, with a kill if it does not.
func (p *workerPool) shutdown(w *worker) {
	p.forget(w)
	w.req.Close()
	select {
	case <-w.exited:
	case <-time.After(2 * time.Second):
		w.kill()
		<-w.exited
	}
}

// close ends every worker. Callers first wait for running statements.
func (p *workerPool) close() {
	p.mu.Lock()
	p.closed = true
	p.mu.Unlock()
	p.refills.Wait()
	p.mu.Lock()
	idle := p.idle
	p.idle = nil
	var busy []*worker
	for w := range p.live {
		if !containsWorker(idle, w) {
			busy = append(busy, w)
		}
	}
	p.mu.Unlock()
	var wg sync.WaitGroup
	for _, w := range idle {
		wg.Go(func() { p.shutdown(w) })
	}
	for _, w := range busy {
		w.kill()
	}
	wg.Wait()
}

func containsWorker(ws []*worker, w *worker) bool {
	for _, x := range ws {
		if x == w {
			return true
		}
	}
	return false
}

// workerHandle returns the engine's worker pool, creating it on first use,
// and counts a running call that the caller must end with e.running.Done.
func (e *Engine) workerHandle() (*workerPool, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return nil, &sqlgym.InfraError{Err: errors.New("duckdb engine is closed")}
	}
	if e.procs == nil {
		limit, err := parseSize(e.opts.MemoryLimit)
		if err != nil {
			return nil, &sqlgym.InfraError{Err: fmt.Errorf("duckdb memory limit: %w", err)}
		}
		e.procs = newWorkerPool(workerConfig{
			Path:        e.path,
			MemoryLimit: e.opts.MemoryLimit,
			Threads:     e.opts.Threads,
			DataLimit:   limit + WorkerHeadroom,
			WallClock:   e.opts.WallClockTimeout,
			UnsafeAllow: e.opts.unsafeAllow,
			CrashOn:     e.opts.crashOn,
		}, e.opts.PoolSize)
	}
	e.running.Add(1)
	return e.procs, nil
}

// acquireWorker is workerHandle and a worker, with Query's error mapping.
func (e *Engine) acquireWorker(ctx context.Context) (*workerPool, *worker, error) {
	p, err := e.workerHandle()
	if err != nil {
		return nil, nil, err
	}
	// The file may have gone since Open; DuckDB would create a new one.
	if err := checkFile(e.path); err != nil {
		e.running.Done()
		return nil, nil, &sqlgym.InfraError{Err: err}
	}
	w, err := p.acquire(ctx)
	if err != nil {
		e.running.Done()
		if ctx.Err() != nil {
			return nil, nil, fmt.Errorf("duckdb: waiting for a worker: %w", ctx.Err())
		}
		return nil, nil, &sqlgym.InfraError{Err: err}
	}
	return p, w, nil
}

// queryWorker runs the statement in a worker process. The worker enforces
// the limits itself; the parent kills it when it overruns them. A worker
// that dies mid-statement of an unknown cause is replaced and the
// statement tried once more: the second attempt's answer is the answer,
// and a second crash is the statement's own error.
func (e *Engine) queryWorker(ctx context.Context, query string, lim sqlgym.Limits) (*sqlgym.ResultSet, error) {
	lim = lim.WithDefaults()
	crashes := 0
	for attempt := 0; ; attempt++ {
		res, err, crash := e.queryWorkerOnce(ctx, query, lim)
		switch {
		case crash == "":
			return res, err
		case crash == recycledCrash && attempt < 3:
			// The worker stopped itself before it read the request:
			// nothing ran, so this is no attempt.
			continue
		case crash == recycledCrash:
			// Nothing ran, however often: the pool's fault, never the
			// statement's.
			return nil, &sqlgym.InfraError{Err: errors.New("duckdb: fresh workers kept stopping before they read the statement")}
		}
		if crashes++; crashes == 2 {
			return nil, &sqlgym.ExecError{Kind: sqlgym.ErrKindOther,
				Msg: "the statement crashed the DuckDB worker twice, on two fresh processes (" + crash + ")"}
		}
	}
}

// parentWait is how long the parent waits for a worker's answer before it
// kills the worker: the worker's own stop plus its grace and a slack.
func (e *Engine) parentWait(lim sqlgym.Limits) time.Duration {
	stop := lim.Timeout
	if !e.opts.WallClockTimeout {
		stop = wallStop(lim)
	}
	return stop + workerSlack(lim.Timeout)
}

// queryWorkerOnce is one attempt. crash is set, with the error unset, when
// the worker crashed and the statement deserves another try.
//
//lint:ignore ST1008 the crash text rides beside the error, as queryInProcess returns abandoned
func (e *Engine) queryWorkerOnce(ctx context.Context, query string, lim sqlgym.Limits) (_ *sqlgym.ResultSet, _ error, crash string) {
	p, w, err := e.acquireWorker(ctx)
	if err != nil {
		return nil, err, ""
	}
	defer e.running.Done()
	// As in-process, the clock starts once a worker is ready: starting one
	// is the pool's delay, not the statement's time.
	wait := time.NewTimer(e.parentWait(lim))
	defer wait.Stop()
	// The worker's CPU time so far (start-up, earlier statements): only
	// what this statement adds to it is the statement's.
	cpu0, cpu0Err := childCPU(w.cmd.Process.Pid)
	answer := w.roundTrip(workerRequest{SQL: query, Limits: lim})
	select {
	case r := <-answer:
		return p.settle(w, r)
	case <-ctx.Done():
		p.discard(w)
		return nil, fmt.Errorf("duckdb: statement cancelled: %w", ctx.Err()), ""
	case <-wait.C:
	}
	// The worker did not stop itself in time (it is starved, or stuck
	// where it cannot even answer). What it spent decides: its CPU budget
	// (or, on the wall clock, the time) is gone, or the machine is too busy.
	cpu, cpuErr := childCPU(w.cmd.Process.Pid)
	cpu -= cpu0
	cpuErr = errors.Join(cpu0Err, cpuErr)
	p.discard(w)
	if e.opts.WallClockTimeout || cpuErr != nil || cpu >= lim.Timeout {
		return nil, fmt.Errorf("duckdb: %w after %s", sqlgym.ErrTimeout, lim.Timeout), ""
	}
	return nil, &sqlgym.InfraError{Err: fmt.Errorf("duckdb: the worker used %s of CPU time in %s, under its %s budget, and did not answer: the machine is too busy (%w)",
		cpu.Round(time.Millisecond), e.parentWait(lim), lim.Timeout, sqlgym.ErrSafetyNet)}, ""
}

// settle turns a worker's answer into Query's, and returns or kills the
// worker.
//
//lint:ignore ST1008 the crash text rides beside the error, as queryWorkerOnce returns it
func (p *workerPool) settle(w *worker, r reply) (*sqlgym.ResultSet, error, string) {
	if r.err != nil {
		kind, desc := w.classifyDeath()
		p.discard(w)
		switch kind {
		case deathOOM:
			// Past RLIMIT_DATA the Go runtime or C++ may abort instead of
			// failing the allocation: the statement's memory cap.
			return nil, &sqlgym.ExecError{Kind: sqlgym.ErrKindOther, Err: r.err,
				Msg: "out of memory: " + deathMsg(kind, desc)}, ""
		case deathExternal:
			return nil, &sqlgym.InfraError{Err: fmt.Errorf("duckdb: %s: %w", deathMsg(kind, desc), r.err)}, ""
		case deathRecycled:
			return nil, nil, recycledCrash
		}
		return nil, nil, deathMsg(kind, desc)
	}
	if r.resp.Abandoned || r.resp.Recycle {
		p.discard(w)
	} else {
		p.release(w)
	}
	if r.resp.Err != nil {
		return nil, r.resp.Err.err(), ""
	}
	res := r.resp.Res
	if res == nil {
		return nil, &sqlgym.InfraError{Err: errors.New("duckdb worker sent neither a result nor an error")}, ""
	}
	// gob drops empty slices; an empty result has an empty, non-nil Rows.
	if res.Rows == nil {
		res.Rows = [][]sqlgym.Value{}
	}
	if res.Columns == nil {
		res.Columns = []string{}
	}
	return res, nil, ""
}

// describeWorker runs Describe in a worker: the parent never opens DuckDB.
func (e *Engine) describeWorker(ctx context.Context) (*sqlgym.Schema, error) {
	p, w, err := e.acquireWorker(ctx)
	if err != nil {
		return nil, err
	}
	defer e.running.Done()
	select {
	case r := <-w.roundTrip(workerRequest{Describe: true}):
		if r.err != nil {
			p.discard(w)
			return nil, &sqlgym.InfraError{Err: fmt.Errorf("duckdb describe %s: %s", e.path, w.death())}
		}
		p.release(w)
		if r.resp.Err != nil {
			return nil, r.resp.Err.err()
		}
		return r.resp.Schema, nil
	case <-ctx.Done():
		p.discard(w)
		return nil, fmt.Errorf("duckdb describe: %w", ctx.Err())
	}
}

// tailBuffer keeps the first and the last max/2 bytes written: a
// worker's dying words (the Go runtime's "fatal error: ..." comes first,
// before pages of goroutine traces; C++ and DuckDB print last).
type tailBuffer struct {
	mu   sync.Mutex
	max  int
	head []byte
	b    []byte
	cut  bool
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	n := len(p)
	if room := t.max/2 - len(t.head); room > 0 {
		k := min(room, len(p))
		t.head = append(t.head, p[:k]...)
		p = p[k:]
	}
	t.b = append(t.b, p...)
	if len(t.b) > t.max/2 {
		t.b = append(t.b[:0], t.b[len(t.b)-t.max/2:]...)
		t.cut = true
	}
	return n, nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.cut {
		return string(t.head) + " ... " + string(t.b)
	}
	return string(t.head) + string(t.b)
}
