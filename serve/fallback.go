package serve

import (
	"fmt"
	"net/http"
)

// routes answers the requests no route takes (404, and 405 for a route
// asked with the wrong method) with the documented JSON error body, as
// every other error: http.ServeMux's own answers are plain text, which a
// trainer's client fails to parse.
func (s *Server) routes() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h, pattern := s.mux.Handler(r)
		if pattern != "" {
			// The mux matches again rather than calling h: only ServeHTTP
			// sets the path values ({id}) the episode routes read.
			s.mux.ServeHTTP(w, r)
			return
		}
		// Let the mux decide 404 or 405 (and the Allow header), keep only
		// its status and headers.
		probe := &statusProbe{header: http.Header{}}
		h.ServeHTTP(probe, r)
		if allow := probe.header.Get("Allow"); allow != "" {
			w.Header().Set("Allow", allow)
		}
		switch probe.code {
		case http.StatusMethodNotAllowed:
			s.writeError(w, probe.code, fmt.Sprintf("%s is not served for %s (allowed: %s)", r.Method, r.URL.Path, probe.header.Get("Allow")))
		case http.StatusNotFound, 0:
			s.writeError(w, http.StatusNotFound, fmt.Sprintf("no route %s %s: the API is POST /v1/rewards, POST /get_reward, POST /v1/episodes, GET /healthz, GET /metrics (see docs/training.md)", r.Method, r.URL.Path))
		default:
			s.writeError(w, probe.code, http.StatusText(probe.code))
		}
	})
}

// statusProbe records the status and headers a handler answers with and
// drops its body.
type statusProbe struct {
	header http.Header
	code   int
}

func (p *statusProbe) Header() http.Header { return p.header }
func (p *statusProbe) WriteHeader(code int) {
	if p.code == 0 {
		p.code = code
	}
}
func (p *statusProbe) Write(b []byte) (int, error) {
	p.WriteHeader(http.StatusOK)
	return len(b), nil
}
