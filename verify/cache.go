package verify

import (
	"container/list"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/sqlgym/sqlgym"
)

// ResultCache keeps candidates' results across batches, keyed like the
// batch's own deduplication: (database URL, normalised SQL). A reward
// server sees the same query in many batches (a policy repeats itself
// across updates); verify and eval leave Config.Cache nil and run every
// batch afresh.
//
// It is bounded twice, by entries and by the result bytes it holds, and
// evicts the least recently used entry first. Only outcomes that do not
// depend on the machine's load or on the caller are kept: rows, a
// statement's own error, a result past the caps, and SQLite's step budget
// spent. Wall-clock timeouts, infrastructure failures and statements cut
// short by the caller's context are always run again. Safe for concurrent
// use.
type ResultCache struct {
	maxEntries int
	maxBytes   int64

	mu    sync.Mutex
	bytes int64
	lru   *list.List // of *cacheEntry, most recent first
	items map[execKey]*list.Element

	hits, misses, evictions atomic.Int64
}

type cacheEntry struct {
	key execKey
	rs  *sqlgym.ResultSet
	err error
	// The row budget the statement was read with: a capped result only
	// answers a use with the same budget.
	readAll   bool
	stopAfter int
	size      int64
}

// entryOverhead is a rough count of the bytes an entry costs beyond its
// rows: the key, the list element, the map slot.
const entryOverhead = 256

// In-memory sizes the result's byte count leaves out: a row's slice
// header, and per value what a sqlgym.Value struct takes beyond the 16
// bytes Value.Size counts.
const (
	sliceHeader  = 24
	stringHeader = 16
	valueSlack   = int64(unsafe.Sizeof(sqlgym.Value{})) - 16
)

// NewResultCache makes a cache holding at most maxEntries results and
// maxBytes bytes of rows (each at least 1).
func NewResultCache(maxEntries int, maxBytes int64) *ResultCache {
	return &ResultCache{maxEntries: max(maxEntries, 1), maxBytes: max(maxBytes, 1),
		lru: list.New(), items: map[execKey]*list.Element{}}
}

// CacheStats are a cache's counters.
type CacheStats struct {
	Entries   int   `json:"entries"`
	Bytes     int64 `json:"bytes"`
	Hits      int64 `json:"hits"`
	Misses    int64 `json:"misses"`
	Evictions int64 `json:"evictions"`
}

// Stats returns the cache's current size and counters.
func (c *ResultCache) Stats() CacheStats {
	c.mu.Lock()
	n, b := c.lru.Len(), c.bytes
	c.mu.Unlock()
	return CacheStats{Entries: n, Bytes: b, Hits: c.hits.Load(), Misses: c.misses.Load(), Evictions: c.evictions.Load()}
}

// get returns the cached outcome of a candidate when it answers a use
// with the given row budget exactly as running the statement again would.
func (c *ResultCache) get(k execKey, readAll bool, stopAfter int) (*sqlgym.ResultSet, error, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.items[k]
	if ok {
		e := el.Value.(*cacheEntry)
		sameBudget := e.readAll == readAll && (readAll || e.stopAfter == stopAfter)
		// A result that was read to its end holds every row whatever the
		// budget; anything else (a capped result, an error that a smaller
		// budget might not reach) only answers the budget it was read with.
		if sameBudget || e.err == nil && !e.rs.Capped {
			c.lru.MoveToFront(el)
			c.hits.Add(1)
			return e.rs, e.err, true
		}
	}
	c.misses.Add(1)
	return nil, nil, false
}

// put records a candidate's outcome; the caller keeps only memoisable
// ones (see cause).
func (c *ResultCache) put(k execKey, rs *sqlgym.ResultSet, err error, readAll bool, stopAfter int) {
	size := int64(entryOverhead + len(k.url) + len(k.sql))
	if err != nil {
		size += int64(len(err.Error()))
	} else {
		// Bytes counts the values' text; the structs and slices that hold
		// them cost about as much again.
		size += rs.Bytes + int64(len(rs.Rows))*(sliceHeader+int64(rs.NumCols())*valueSlack)
		for _, c := range rs.Columns {
			size += stringHeader + int64(len(c))
		}
	}
	if size > c.maxBytes {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.items[k]; ok {
		c.remove(el)
	}
	e := &cacheEntry{key: k, rs: rs, err: err, readAll: readAll, stopAfter: stopAfter, size: size}
	c.items[k] = c.lru.PushFront(e)
	c.bytes += size
	for c.lru.Len() > c.maxEntries || c.bytes > c.maxBytes {
		c.remove(c.lru.Back())
		c.evictions.Add(1)
	}
}

func (c *ResultCache) remove(el *list.Element) {
	e := el.Value.(*cacheEntry)
	c.lru.Remove(el)
	delete(c.items, e.key)
	c.bytes -= e.size
}
