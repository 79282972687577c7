package sqlite

import (
	"errors"
	"fmt"
	"path/filepath"
)

// Raw is C SQLite with no sandbox beyond opening the file read-only and
// immutable: no authorizer, no step budget, no limits, no pool, SQLite's
// built-in LIKE, GLOB, instr, replace and trim (plus the math functions).
// It exists FOR BENCHMARKS ONLY, as the baseline a verifier's time is
// compared with ("C SQLite running each distinct query once"). Never give
// it untrusted SQL. A Raw is not safe for concurrent use.
type Raw struct {
	c    *conn
	path string
}

// OpenRaw opens the SQLite file at path for benchmarks (see Raw).
func OpenRaw(path string) (*Raw, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("open raw sqlite %s: %w", path, err)
	}
	c, err := openDB(fileURI(abs, false), openReadOnly|openURI|openNoMutex, false)
	if err != nil {
		return nil, fmt.Errorf("open raw sqlite %s: %w", path, err)
	}
	if err := probe(c); err != nil {
		c.close()
		return nil, fmt.Errorf("open raw sqlite %s: %w", path, err)
	}
	return &Raw{c: c, path: abs}, nil
}

// Count runs the first statement of sql to the end, reading every cell of
// every row (text and blobs are read in place, not copied to Go), and
// returns the number of rows.
func (r *Raw) Count(sql string) (int, error) {
	if r.c == nil {
		return 0, ErrClosed
	}
	st, _, err := r.c.prepare(sql)
	if err != nil {
		return 0, err
	}
	if st == nil {
		return 0, errors.New("raw sqlite: empty statement")
	}
	defer st.close()
	n := 0
	for {
		ok, err := st.next()
		if err != nil {
			return n, err
		}
		if !ok {
			return n, nil
		}
		n++
	}
}

// Close closes the connection.
func (r *Raw) Close() error {
	if r.c == nil {
		return nil
	}
	err := r.c.close()
	r.c = nil
	return err
}
