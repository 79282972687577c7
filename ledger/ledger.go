package ledger

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"time"
)

// FileName is the ledger's file name.
const FileName = "ledger.jsonl"

// PathFor is the ledger that records the run folder runDir: ledger.jsonl in
// runDir's parent, so --out runs/NAME is recorded in runs/ledger.jsonl.
func PathFor(runDir string) string {
	return filepath.Join(filepath.Dir(filepath.Clean(runDir)), FileName)
}

// Append adds e to the ledger at path as one line, creating the file and
// its folder when needed. The line goes out in a single write to a file
// opened with O_APPEND, so concurrent writers never interleave inside a
// line and nothing already there is touched. A zero Time is set to now.
func Append(path string, e Entry) error {
	if e.Time.IsZero() {
		e.Time = time.Now().UTC()
	}
	if e.Kind == "" {
		return fmt.Errorf("ledger entry: kind is empty")
	}
	e.Headline = finiteOnly(e.Headline)
	line, err := json.Marshal(e)
	if err != nil {
		return fmt.Errorf("ledger entry: %w", err)
	}
	line = append(line, '\n')
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("create ledger folder: %w", err)
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return fmt.Errorf("open ledger: %w", err)
	}
	// A writer killed mid-line leaves a tail without a newline; start on a
	// fresh line so this entry is not glued to the torn one.
	if torn, err := endsTorn(path); err == nil && torn {
		line = append([]byte{'\n'}, line...)
	}
	if _, err := f.Write(line); err != nil {
		f.Close()
		return fmt.Errorf("append to ledger: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("append to ledger: %w", err)
	}
	return nil
}

func finiteOnly(m map[string]float64) map[string]float64 {
	if len(m) == 0 {
		return nil
	}
	out := make(map[string]float64, len(m))
	for k, v := range m {
		if !math.IsNaN(v) && !math.IsInf(v, 0) {
			out[k] = v
		}
	}
	return out
}

// endsTorn reports whether the file is non-empty and its last byte is not
// a newline.
func endsTorn(path string) (bool, error) {
	f, err := os.Open(path)
	if err != nil {
		return false, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil || st.Size() == 0 {
		return false, err
	}
	b := make([]byte, 1)
	if _, err := f.ReadAt(b, st.Size()-1); err != nil {
		return false, err
	}
	return b[0] != '\n', nil
}

// Read returns the ledger's entries in order. Lines that do not parse (a
// torn write) are skipped and counted in damaged. A missing file is an
// empty ledger.
func Read(path string) (entries []Entry, damaged int, err error) {
	f, err := os.Open(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, 0, nil
		}
		return nil, 0, fmt.Errorf("open ledger: %w", err)
	}
	defer f.Close()
	r := bufio.NewReader(f)
	for {
		b, rerr := r.ReadBytes('\n')
		if t := bytes.TrimSpace(b); len(t) > 0 {
			var e Entry
			if json.Unmarshal(t, &e) == nil {
				entries = append(entries, e)
			} else {
				damaged++
			}
		}
		if rerr == io.EOF {
			return entries, damaged, nil
		}
		if rerr != nil {
			return entries, damaged, fmt.Errorf("read ledger: %w", rerr)
		}
	}
}
