package serve

// HeldBytes is the most the server holds in the bytes it counts, with the
// defaults filled: candidates' results (ResultBytes), request bodies
// (BodyBytes) and the verdict cache (CacheBytes). `sqlgym serve` sets Go's
// soft memory limit from it, as `verify` does from its byte budget, so a
// burst of large results cannot double the heap between collections.
func (s *Server) HeldBytes() int64 {
	return s.cfg.ResultBytes + s.cfg.BodyBytes + s.cfg.CacheBytes
}
