package serve

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/http"
	"os"
	"strings"
)

// Episodes live in one process's memory, so behind a load balancer every
// step of an episode must reach the replica that opened it. An episode id
// starts with the replica's id and a dot ("sqlgym-0.ep-3f…"): a balancer
// routes on that prefix (HAProxy: a use-server rule per replica on the
// path's fourth field; Kubernetes: the StatefulSet pod of that name, see
// docs/deploy.md), and a replica that gets a step for an episode it does
// not hold names the one that does.

// ReplicaHeader is sent on every answer: which replica served it.
const ReplicaHeader = "X-Sqlgym-Replica"

// DefaultReplicaID is the replica id a server takes when none is given:
// the host name's first label (a Kubernetes pod's name, which a
// StatefulSet keeps stable and its headless Service resolves), or a random
// short id when the host name is unusable.
func DefaultReplicaID() string {
	if h, err := os.Hostname(); err == nil {
		if id, err := ParseReplicaID(strings.SplitN(h, ".", 2)[0]); err == nil {
			return id
		}
	}
	var b [3]byte
	_, _ = rand.Read(b[:]) // crypto/rand never fails on supported platforms
	return "r" + hex.EncodeToString(b[:])
}

// ParseReplicaID checks a replica id: 1 to 63 of [a-z0-9-], not starting
// or ending with '-' (a DNS label, so a pod name fits and the id needs no
// escaping in a URL path or an HAProxy rule). Upper case is folded.
func ParseReplicaID(s string) (string, error) {
	id := strings.ToLower(s)
	ok := id != "" && len(id) <= 63 && id[0] != '-' && id[len(id)-1] != '-'
	for _, c := range id {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
			ok = false
		}
	}
	if !ok {
		return "", fmt.Errorf("replica id %q: use 1 to 63 letters, digits and inner '-' (a DNS label, e.g. the pod name)", s)
	}
	return id, nil
}

// episodeReplica is the replica an episode id names, "" for an id without
// a prefix.
func episodeReplica(id string) string {
	r, _, ok := strings.Cut(id, ".")
	if !ok {
		return ""
	}
	return r
}

// Replica is the server's replica id.
func (s *Server) Replica() string { return s.cfg.ReplicaID }

// withReplica names the replica on every answer, so a client (or an
// operator reading a balancer's log) sees who served it.
func (s *Server) withReplica(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set(ReplicaHeader, s.cfg.ReplicaID)
		h.ServeHTTP(w, r)
	})
}

// episodeNotFound answers a step or delete for an episode this replica
// does not hold, naming the replica that does when the id says so.
func (s *Server) episodeNotFound(w http.ResponseWriter, id string) {
	msg := "no open episode " + quote(id) + " on replica " + quote(s.cfg.ReplicaID)
	switch holder := episodeReplica(id); {
	case holder != "" && holder != s.cfg.ReplicaID:
		s.sm.misrouted.WithLabelValues("other_replica").Inc()
		msg += ": it was opened on replica " + quote(holder) + "; episodes live in the memory of the replica that opened them, " +
			"so route every step to it by the id's prefix before the first '.' (docs/deploy.md shows HAProxy and Kubernetes rules)"
	default:
		s.sm.misrouted.WithLabelValues("unknown").Inc()
		msg += ": it ended, expired (idle past the TTL), was opened before this replica restarted, or never was"
	}
	s.writeError(w, http.StatusNotFound, msg)
}
