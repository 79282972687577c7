package postgres

import (
	"context"
	"errors"
	"slices"
	"sync"
	"time"
)

// The load calibration that keeps statement_timeout, a wall-clock limit,
// from deciding `timeout` differently on a busy machine. PostgreSQL has no
// deterministic step counter, and a backend's CPU time is not visible to
// a client, so the engine measures how long a fixed CPU-bound probe takes
// when it opens (the idle reference) and again when a statement times
// out. The ratio is the server's
// slowdown; see Query for how it is used and docs/sandbox-postgres.md for
// the measured effect.
const (
	// The probe is the difference between a large and a small query run
	// back to back on one session (about 50 ms and 10 ms of one core on an
	// idle server). Each round trip waits for the backend to be scheduled,
	// and on a busy machine that wait, not the work, dominates a short
	// query: measured, a single 40 ms probe overstated the slowdown long
	// statements saw, which let statements over their limit pass. The
	// difference cancels the per-round-trip wait.
	probeSmallSQL = "SELECT count(*) FROM generate_series(1, 50000)"
	probeLargeSQL = "SELECT count(*) FROM generate_series(1, 250000)"
	// minRetrySlowdown is the slowdown past which a timed-out statement
	// is run again: below it, noise.
	minRetrySlowdown = 1.5
	// maxRetryStretch caps how far a retry stretches the time limit, so a
	// statement that is simply too slow costs at most this much more.
	maxRetryStretch = 4.0
	// calibrationProbes is how many probes Open takes for the reference.
	calibrationProbes = 5
)

var errNoProbe = errors.New("no connection free for the load probe")

type calibration struct {
	mu   sync.Mutex
	idle time.Duration // 0: unknown, no retry
}

// calibrate takes the idle reference: the median of calibrationProbes
// probes. Not the fastest: a minimum is a best case that later probes
// rarely match, which would overstate every slowdown and stretch limits
// for statements that are merely over them (measured: see
// docs/sandbox-postgres.md). Failures leave it unknown, which only turns
// the retry off.
func (e *Engine) calibrate(ctx context.Context) {
	var took []time.Duration
	for i := 0; i < calibrationProbes; i++ {
		d, err := e.probe(ctx)
		if err != nil {
			return
		}
		took = append(took, d)
	}
	slices.Sort(took)
	e.cal.mu.Lock()
	e.cal.idle = took[len(took)/2]
	e.cal.mu.Unlock()
}

// probe times the large probe query minus the small one on one pooled
// session.
func (e *Engine) probe(ctx context.Context) (time.Duration, error) {
	pctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), probeTimeout)
	defer cancel()
	c, err := e.pool.Acquire(pctx)
	if err != nil {
		// A busy pool says nothing about the server's speed.
		return 0, errNoProbe
	}
	pc := c.Conn().PgConn()
	start := time.Now()
	_, err = pc.Exec(pctx, probeSmallSQL).ReadAll()
	small := time.Since(start)
	if err == nil {
		start = time.Now()
		_, err = pc.Exec(pctx, probeLargeSQL).ReadAll()
	}
	large := time.Since(start)
	if err != nil {
		// A probe cut short leaves the session in doubt.
		discard(c)
		return 0, err
	}
	c.Release()
	return max(large-small, time.Microsecond), nil
}

// slowdown is how many times slower the server runs the probe now than
// at its best; 1 when unknown.
func (e *Engine) slowdown(ctx context.Context) float64 {
	if e.noRetry {
		return 1
	}
	e.cal.mu.Lock()
	idle := e.cal.idle
	e.cal.mu.Unlock()
	if idle == 0 {
		return 1
	}
	took, err := e.probe(ctx)
	if err != nil && !errors.Is(err, context.DeadlineExceeded) {
		// A pooled session the server dropped fails the probe at once;
		// the next one is fresh.
		took, err = e.probe(ctx)
	}
	switch {
	case err == nil:
	case errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil:
		// The probe itself did not finish in probeTimeout: very busy.
		return maxRetryStretch
	default:
		return 1
	}
	return float64(took) / float64(idle)
}
