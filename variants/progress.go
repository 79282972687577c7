package variants

import (
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/sqlgym/sqlgym/internal/tick"
)

// Progress prints where a run of many databases is, for a person at a
// terminal: a line when a database starts and when it is done or resumed,
// and every so often the step the current one is at, with the time left
// estimated from the tasks done so far (a database costs about its tasks'
// share; resumed ones cost nothing and count as done). The generator's
// own traces go to Options.Log, which `sqlgym variants` prints only with
// --verbose.
type Progress struct {
	mu       sync.Mutex
	w        io.Writer
	dbs      int // databases of the run
	tasks    int // tasks of the run
	doneDBs  int
	doneT    int // tasks of databases done or resumed
	madeT    int // tasks of databases made by this process
	made     time.Duration
	cur      string
	curTasks int
	step     string
	t0       time.Time // start of the current database
	start    time.Time
	ticker   *tick.Ticker
}

// NewProgress starts a progress of dbs databases holding tasks tasks,
// printing to w, with a line about the current database every every (no
// ticker when every is 0).
func NewProgress(w io.Writer, dbs, tasks int, every time.Duration) *Progress {
	p := &Progress{w: w, dbs: dbs, tasks: tasks, start: time.Now()}
	if every > 0 {
		p.ticker = tick.Every(every, func() {
			p.mu.Lock()
			defer p.mu.Unlock()
			if p.cur != "" {
				p.line("%s (%d tasks): %s for %s", p.cur, p.curTasks, p.step, time.Since(p.t0).Round(time.Second))
			}
		})
	}
	return p
}

// Start marks the start of a database's generation.
func (p *Progress) Start(name string, tasks int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.cur, p.curTasks, p.step, p.t0 = name, tasks, "screening its golds", time.Now()
	p.line("%s (%d tasks): started", name, tasks)
}

// Step names what the current database is doing; Options.Step is it.
func (p *Progress) Step(step string) {
	p.mu.Lock()
	p.step = step
	p.mu.Unlock()
}

// Done marks a database finished: made by this process, or resumed from
// an earlier run's folder (why says so).
func (p *Progress) Done(name string, tasks int, resumed string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.doneDBs++
	p.doneT += tasks
	if resumed != "" {
		p.line("%s (%d tasks): %s", name, tasks, resumed)
		return
	}
	d := time.Since(p.t0)
	p.made += d
	p.madeT += tasks
	p.cur = ""
	p.line("%s (%d tasks): done in %s", name, tasks, d.Round(time.Second))
}

// Close stops the ticker.
func (p *Progress) Close() { p.ticker.Stop() }

// line prints one progress line; mu is held.
func (p *Progress) line(format string, args ...any) {
	if p.w == nil {
		return
	}
	fmt.Fprintf(p.w, "variants: %d/%d databases, %d/%d tasks done, %s elapsed%s; %s\n",
		p.doneDBs, p.dbs, p.doneT, p.tasks, time.Since(p.start).Round(time.Second), p.eta(), fmt.Sprintf(format, args...))
}

// eta estimates the time left from the seconds per task of the databases
// this process made; nothing before the first is made.
func (p *Progress) eta() string {
	if p.madeT == 0 {
		if p.doneDBs < p.dbs {
			return ", ETA after the first database"
		}
		return ""
	}
	per := p.made.Seconds() / float64(p.madeT)
	left := per * float64(p.tasks-p.doneT)
	if p.cur != "" {
		left -= time.Since(p.t0).Seconds()
	}
	return ", ETA " + time.Duration(max(left, 0)*float64(time.Second)).Round(time.Second).String()
}
