package serve

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"time"

	"github.com/sqlgym/sqlgym"
)

// Readiness is separate from liveness: /healthz answers 200 as soon as
// the process listens (a probe that kills a replica still warming would
// restart it forever), /readyz only once the replica can score at full
// speed: its databases are open and, when it warms, its golds are cached.
// On drain it turns 503 first, so a balancer stops sending new work while
// the requests in flight finish.

// OpenDatabases opens the database of every servable task and runs a
// trivial statement on it, so a missing file or an unreachable PostgreSQL
// shows before the replica reports ready, not on a trainer's first batch.
func (s *Server) OpenDatabases(ctx context.Context) error {
	var names []string
	for _, t := range s.cfg.Tasks {
		if s.servable(&t) && !slices.Contains(names, t.DB) {
			names = append(names, t.DB)
		}
	}
	for _, name := range names {
		u, err := s.cfg.DBs.Resolve(name)
		if err != nil {
			return fmt.Errorf("open database %s: %w", name, err)
		}
		eng, err := s.cfg.DBs.EngineURL(ctx, u)
		if err != nil {
			return fmt.Errorf("open database %s: %w", name, err)
		}
		if _, err := eng.Query(ctx, "SELECT 1", sqlgym.Limits{}); err != nil {
			return fmt.Errorf("open database %s: a trivial statement fails: %w", name, err)
		}
	}
	return nil
}

// ReadyWhenOpen retries OpenDatabases every interval until it succeeds
// or ctx ends, then marks the server ready: a database that is down at
// start (a PostgreSQL still starting) keeps the replica out of its
// balancer until it opens, without stopping the process.
func (s *Server) ReadyWhenOpen(ctx context.Context, first error, interval time.Duration) {
	err := first
	for err != nil {
		s.notReady.Store(err.Error())
		select {
		case <-ctx.Done():
			return
		case <-time.After(interval):
		}
		err = s.OpenDatabases(ctx)
	}
	s.notReady.Store("")
	s.MarkReady()
}

// MarkReady makes /readyz answer 200 (until drain). Call it once the
// databases are open (OpenDatabases) and, with warming, after Warm.
func (s *Server) MarkReady() {
	s.ready.Store(true)
	if !s.draining.Load() { // a server that drains stays unready in the metric too
		s.sm.ready.Set(1)
	}
}

func (s *Server) handleReady(w http.ResponseWriter, _ *http.Request) {
	switch {
	case s.draining.Load():
		s.writeJSON(w, http.StatusServiceUnavailable, map[string]any{"status": "draining", "replica": s.cfg.ReplicaID})
	case !s.ready.Load():
		detail, _ := s.notReady.Load().(string)
		if detail == "" {
			detail = "opening databases or warming golds"
		}
		s.writeJSON(w, http.StatusServiceUnavailable, map[string]any{"status": "starting", "replica": s.cfg.ReplicaID,
			"detail": detail})
	default:
		s.writeJSON(w, http.StatusOK, map[string]any{"status": "ready", "replica": s.cfg.ReplicaID,
			"open_episodes": s.eps.count()})
	}
}

// unreadyPause waits UnreadyDelay after drain began, still serving.
func (s *Server) unreadyPause() {
	if s.cfg.UnreadyDelay > 0 {
		time.Sleep(s.cfg.UnreadyDelay)
	}
}
