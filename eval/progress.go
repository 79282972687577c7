package eval

import (
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/internal/tick"
)

// progress counts samples as they finish and prints a line every so often:
// per-sample lines would flood a terminal at hundreds of samples a second.
type progress struct {
	mu      sync.Mutex
	w       io.Writer
	out     string
	total   int // samples the run needs in all
	done    int // samples in the folder, old and new
	started int // done when this process started
	missing int
	scored  int
	correct int
	t0      time.Time
	ticker  *tick.Ticker
	retries *RetryLog
}

func newProgress(w io.Writer, out string, total int) *progress {
	return &progress{w: w, out: out, total: total, t0: time.Now()}
}

// count records a sample already present (old) or just written.
func (p *progress) count(o sqlgym.Outcome) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done++
	if o.Scored() {
		p.scored++
		if o == sqlgym.OutcomeCorrect {
			p.correct++
		}
	}
}

func (p *progress) lose(n int) {
	p.mu.Lock()
	p.missing += n
	p.mu.Unlock()
}

// begin marks the start of this process's work and starts the ticker.
func (p *progress) begin(every time.Duration) {
	p.mu.Lock()
	p.started, p.t0 = p.done, time.Now()
	p.mu.Unlock()
	if p.w == nil {
		return
	}
	p.ticker = tick.Every(every, p.print)
}

func (p *progress) end() { p.ticker.Stop() }

func (p *progress) print() {
	p.mu.Lock()
	defer p.mu.Unlock()
	el := time.Since(p.t0)
	newDone := p.done - p.started
	rate := float64(newDone) / max(el.Seconds(), 1e-9)
	line := fmt.Sprintf("eval %s: %d/%d samples, %.1f/s", p.out, p.done, p.total, rate)
	if left := p.total - p.done - p.missing; left > 0 && rate > 0 {
		line += ", ETA " + time.Duration(float64(left)/rate*float64(time.Second)).Round(time.Second).String()
	}
	if p.scored > 0 {
		line += fmt.Sprintf(", pass@1 so far %.3f", float64(p.correct)/float64(p.scored))
	}
	if p.missing > 0 {
		line += fmt.Sprintf(", %d missing", p.missing)
	}
	line += p.retries.line()
	fmt.Fprintln(p.w, line)
}
