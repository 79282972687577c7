package serve

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"time"
)

// statusWriter remembers the status code for metrics.
type statusWriter struct {
	http.ResponseWriter
	code int
}

func (w *statusWriter) WriteHeader(code int) {
	w.code = code
	w.ResponseWriter.WriteHeader(code)
}

// Unwrap lets http.ResponseController reach the connection.
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// instrument counts and times a scoring route, gives each request its
// deadline, and holds its body's bytes in the process's body budget for as
// long as the request is served: a request that does not fit is turned
// away (429) before its body is read.
func (s *Server) instrument(route string, h func(http.ResponseWriter, *http.Request)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		s.m.inflight.Inc()
		defer s.m.inflight.Dec()
		sw := &statusWriter{ResponseWriter: w, code: http.StatusOK}
		defer func() {
			s.m.requests.WithLabelValues(route, strconv.Itoa(sw.code)).Inc()
			s.m.duration.WithLabelValues(route).Observe(time.Since(start).Seconds())
		}()
		size := r.ContentLength
		switch {
		case size > s.cfg.MaxBodyBytes:
			s.m.rejected.WithLabelValues("too_large").Inc()
			s.writeError(sw, http.StatusRequestEntityTooLarge, fmt.Sprintf("request body of %d bytes, over %d: send smaller batches", size, s.cfg.MaxBodyBytes))
			return
		case size < 0:
			size = s.cfg.MaxBodyBytes // chunked: it may be as large as allowed
		}
		if !s.bodies.TryAcquire(size) {
			s.m.rejected.WithLabelValues("busy").Inc()
			s.retryAfter(sw)
			s.writeError(sw, http.StatusTooManyRequests, fmt.Sprintf("%d bytes of request bodies in flight already (the server's limit is %d): retry after the Retry-After seconds", s.bodies.Stats().Taken, s.bodies.Limit()))
			return
		}
		defer s.bodies.Release(size)
		ctx, cancel := context.WithTimeout(r.Context(), s.cfg.Deadline)
		defer cancel()
		h(sw, r.WithContext(ctx))
	})
}

func (s *Server) handleRewards(w http.ResponseWriter, r *http.Request) {
	var req RewardsRequest
	if !s.decode(w, r, &req) {
		return
	}
	if req.Items == nil {
		// Without this an empty or misnamed body ({"completions": ...})
		// answered 200 with no results, which a trainer took for scores.
		s.fail(w, badRequest(`request body has no "items" array: send {"items": [{"task_id", "completion" | "sql"}, ...]} (see docs/training.md)`))
		return
	}
	if !s.checkSize(w, len(req.Items)) {
		return
	}
	weights, err := s.weightsFor(req.Weights)
	if err != nil {
		s.fail(w, err)
		return
	}
	res, err := s.scoreWith(r.Context(), req.Items, weights, true)
	if err != nil {
		s.fail(w, err)
		return
	}
	s.writeJSON(w, http.StatusOK, RewardsResponse{Results: res})
}

// decode reads a JSON body within the size limit and the read timeout,
// strictly (strictJSON: exact keys, no duplicate, nothing after the
// value); on failure it has answered already (413, 408 or 400).
func (s *Server) decode(w http.ResponseWriter, r *http.Request, v any) bool {
	rc := http.NewResponseController(w)
	// The deadline is the body's, not the request's: it is lifted once
	// the body is read (net/http lifts it too when it starts watching the
	// connection), so scoring that takes longer is not cut short.
	_ = rc.SetReadDeadline(time.Now().Add(s.cfg.ReadTimeout))
	data, err := io.ReadAll(http.MaxBytesReader(w, r.Body, s.cfg.MaxBodyBytes))
	if err == nil {
		err = unmarshalStrict(data, v)
	}
	var (
		mbe *http.MaxBytesError
		ne  net.Error
	)
	switch {
	case err == nil:
		_ = rc.SetReadDeadline(time.Time{})
		return true
	case errors.As(err, &ne) && ne.Timeout():
		s.m.rejected.WithLabelValues("read_timeout").Inc()
		w.Header().Set("Connection", "close")
		s.writeError(w, http.StatusRequestTimeout, fmt.Sprintf("request body not received within %v", s.cfg.ReadTimeout))
	case errors.As(err, &mbe):
		s.m.rejected.WithLabelValues("too_large").Inc()
		s.writeError(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("request body over %d bytes: send smaller batches", s.cfg.MaxBodyBytes))
	default:
		s.m.rejected.WithLabelValues("bad_request").Inc()
		s.writeError(w, http.StatusBadRequest, "request body is not the expected JSON: "+err.Error())
	}
	return false
}

func (s *Server) checkSize(w http.ResponseWriter, n int) bool {
	s.m.batchSize.Observe(float64(n))
	if n > s.cfg.MaxItems {
		s.m.rejected.WithLabelValues("too_large").Inc()
		s.writeError(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("%d items in one request, over the limit of %d: send smaller batches", n, s.cfg.MaxItems))
		return false
	}
	return true
}

// fail answers a scoring error: 400 for the client's mistake, 429 for a
// full queue, 503 for a deadline or an outage, both with Retry-After.
func (s *Server) fail(w http.ResponseWriter, err error) {
	var re *requestError
	switch {
	case errors.As(err, &re):
		s.m.rejected.WithLabelValues("bad_request").Inc()
		s.writeError(w, http.StatusBadRequest, re.msg)
	case errors.Is(err, errBusy), errors.Is(err, errEpisodesFull):
		s.m.rejected.WithLabelValues("busy").Inc()
		s.retryAfter(w)
		s.writeError(w, http.StatusTooManyRequests, err.Error()+": retry after the Retry-After seconds")
	case errors.Is(err, errDeadline):
		s.m.rejected.WithLabelValues("deadline").Inc()
		s.retryAfter(w)
		s.writeError(w, http.StatusServiceUnavailable, err.Error())
	default:
		s.m.rejected.WithLabelValues("infra").Inc()
		s.retryAfter(w)
		s.writeError(w, http.StatusServiceUnavailable, err.Error())
	}
}

func (s *Server) retryAfter(w http.ResponseWriter) {
	secs := int((s.cfg.RetryAfter + time.Second - 1) / time.Second)
	w.Header().Set("Retry-After", strconv.Itoa(max(secs, 1)))
}

func (s *Server) handleHealth(w http.ResponseWriter, _ *http.Request) {
	if s.draining.Load() {
		s.writeJSON(w, http.StatusServiceUnavailable, map[string]any{"status": "draining"})
		return
	}
	cfg := s.v.Config()
	s.writeJSON(w, http.StatusOK, map[string]any{
		"status": "ok", "tasks": len(s.tasks), "mode": cfg.Mode, "rewards": cfg.Rewards.String(), "cache": s.cache.Stats(), "memory": s.MemoryStats(),
	})
}

func (s *Server) writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v) // the client went away: nothing left to tell it
}

func (s *Server) writeError(w http.ResponseWriter, code int, msg string) {
	s.writeJSON(w, code, errorBody{Error: msg})
}
