package serve

import "github.com/sqlgym/sqlgym/verify"

// stats reports the statements running and waiting, for tests.
func (g *fairGate) stats() (running, waiting int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.inUse, len(g.waiters)
}

// Ready reports whether /readyz answers 200.
func (s *Server) Ready() bool { return s.ready.Load() && !s.draining.Load() }

// CacheStats reports the cross-request cache.
func (s *Server) CacheStats() verify.CacheStats { return s.cache.Stats() }
