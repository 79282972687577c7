package serve

import (
	"sync"

	"github.com/sqlgym/sqlgym/verify"
)

// adhoc verifies items that bring their own database and gold. The
// verifier keeps every gold result it has run for its lifetime, which is
// right for a fixed task set and unbounded for golds that arrive with
// requests; so after limit distinct golds the ad-hoc verifier is replaced
// by a fresh one (batches under way keep the old one until they finish).
type adhoc struct {
	dbs   Databases
	cfg   verify.Config
	limit int

	mu   sync.Mutex
	v    *verify.Verifier
	seen map[[2]string]struct{}
}

func newAdhoc(dbs Databases, cfg verify.Config, limit int) *adhoc {
	return &adhoc{dbs: dbs, cfg: cfg, limit: limit, v: verify.New(dbs, nil, cfg), seen: map[[2]string]struct{}{}}
}

// verifier returns the verifier for a batch whose ad-hoc golds are keys.
func (a *adhoc) verifier(keys [][2]string) *verify.Verifier {
	a.mu.Lock()
	defer a.mu.Unlock()
	fresh := 0
	for _, k := range keys {
		if _, ok := a.seen[k]; !ok {
			fresh++
		}
	}
	if len(a.seen)+fresh > a.limit {
		a.v = verify.New(a.dbs, nil, a.cfg)
		a.seen = map[[2]string]struct{}{}
	}
	for _, k := range keys {
		a.seen[k] = struct{}{}
	}
	return a.v
}
