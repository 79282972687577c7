package eval

import (
	"context"
	"time"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/agent"
)

// drawEpisodes plays one episode per sample of a unit and appends each
// finished episode. The failures are sorted as draw sorts a policy's: a
// model server that failed past its retries leaves the sample missing, a
// refused request too, and a failure every request would meet ends the
// run.
func (r *runner) drawEpisodes(ctx context.Context, u unit) error {
	for _, j := range u.samples {
		one := unit{task: u.task, samples: []int{j}}
		ep, err := r.env.Start(ctx, u.task, j)
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			if sqlgym.IsInfra(err) {
				r.lose(one, &r.res.MissingDB, err)
				continue
			}
			return err
		}
		t0 := time.Now()
		if err := agent.Play(ctx, ep, r.cfg.Actor); err != nil {
			if ferr := r.policyFailed(ctx, one, err); ferr != nil || ctx.Err() != nil {
				return ferr
			}
			continue
		}
		if ctx.Err() != nil {
			// A verdict cut short would read as a database failure.
			return nil
		}
		s := ep.Record()
		if s.LatencyMS <= 0 {
			s.LatencyMS = time.Since(t0).Milliseconds()
		}
		if err := r.app.Append(&s); err != nil {
			return err
		}
		r.prog.count(s.Outcome)
		r.mu.Lock()
		r.res.Drawn++
		r.mu.Unlock()
	}
	return nil
}
