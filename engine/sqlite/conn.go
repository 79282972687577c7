package sqlite

import (
	"fmt"
	"net/url"
	"path/filepath"
)

// SQLite's limit and db_config identifiers (sqlite3.h).
const (
	limitLength      = 0
	limitSQLLength   = 1
	limitAttached    = 7
	limitLikePattern = 8

	configEnableTrigger       = 1003
	configEnableLoadExtension = 1005
	configDefensive           = 1010
	configWritableSchema      = 1011
	configDQSDML              = 1013
	configDQSDDL              = 1014
	configTrustedSchema       = 1017
	configEnableAttachCreate  = 1020
	configEnableAttachWrite   = 1021
)

// fileURI is the URI of the absolute path opened read-only, immutable
// unless mutable. Building it with net/url escapes '?', '#' and '%' in the
// path, so a file name cannot smuggle URI parameters (mode=rw, vfs=...).
func fileURI(path string, mutable bool) string {
	q := url.Values{"mode": {"ro"}}
	if !mutable {
		q.Set("immutable", "1")
	}
	return uriOf(path, q)
}

func uriOf(path string, q url.Values) string {
	u := url.URL{Scheme: "file", Path: filepath.ToSlash(path), RawQuery: q.Encode()}
	return u.String()
}

// openConn opens one sandboxed connection.
func (e *Engine) openConn() (*conn, error) {
	c, err := openDB(e.uri, openReadOnly|openURI|openNoMutex, true)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", e.path, err)
	}
	if e.opts.ReverseUnordered {
		if err := c.exec(`PRAGMA reverse_unordered_selects = ON`); err != nil {
			c.close()
			return nil, fmt.Errorf("configure %s: %w", e.path, err)
		}
	}
	if err := sandbox(c); err != nil {
		c.close()
		return nil, fmt.Errorf("configure %s: %w", e.path, err)
	}
	return c, nil
}

// sandbox locks a fresh connection down. Each setting is SQLite's own
// enforcement; the authorizer is the main one, the rest are depth.
func sandbox(c *conn) error {
	configs := []struct {
		op int
		on bool
	}{
		{configDefensive, true},
		{configEnableLoadExtension, false},
		{configTrustedSchema, false},
		// Spider and BIRD golds write string literals in double quotes, and
		// Python's sqlite3, which scored them, accepts that.
		{configDQSDML, true},
		{configDQSDDL, false},
		{configEnableTrigger, false},
		{configWritableSchema, false},
		{configEnableAttachCreate, false},
		{configEnableAttachWrite, false},
	}
	for _, cfg := range configs {
		got, err := c.dbConfig(cfg.op, cfg.on)
		if err != nil {
			return fmt.Errorf("db_config %d: %w", cfg.op, err)
		}
		if got != cfg.on {
			return fmt.Errorf("db_config %d did not take", cfg.op)
		}
	}
	// Sorts, temp b-trees and materialised views stay in memory, under the
	// heap limit: spilling them to temp files would let one statement fill
	// the disk and would be a write outside the sandbox's view.
	if err := c.exec(`PRAGMA temp_store = MEMORY`); err != nil {
		return fmt.Errorf("temp_store: %w", err)
	}
	c.limit(limitLength, maxLength)
	c.limit(limitSQLLength, maxSQLLength)
	c.limit(limitAttached, 0)
	c.limit(limitLikePattern, maxLikePattern)
	return c.lockDown()
}
