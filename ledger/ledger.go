package ledger

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"time"

	"github.com/sqlgym/sqlgym/internal/jsonl"
	"github.com/sqlgym/sqlgym/internal/redact"
)

// FileName is the ledger's file name.
const FileName = "ledger.jsonl"

// PathFor is the ledger that records the run folder runDir: ledger.jsonl in
// runDir's parent, so --out runs/NAME is recorded in runs/ledger.jsonl.
func PathFor(runDir string) string {
	return filepath.Join(filepath.Dir(filepath.Clean(runDir)), FileName)
}

// Append adds e to the ledger at path as one line, creating the file and
// its folder when needed. Appenders wait for each other's lock, a torn
// line a killed writer left at the end is cut first, and the entry goes
// out in a single write; nothing else already there is touched. A zero
// Time is set to now. Secrets in the command line are redacted.
func Append(path string, e Entry) error {
	if e.Time.IsZero() {
		e.Time = time.Now().UTC()
	}
	if e.Kind == "" {
		return fmt.Errorf("ledger entry: kind is empty")
	}
	e.Headline = finiteOnly(e.Headline)
	e.Command = redact.Args(e.Command)
	e.Output = redact.Text(e.Output)
	if e.Decoding != nil {
		dec := *e.Decoding
		dec.Extra = redact.Map(dec.Extra)
		e.Decoding = &dec
	}
	line, err := json.Marshal(e)
	if err != nil {
		return fmt.Errorf("ledger entry: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("create ledger folder: %w", err)
	}
	a, _, err := jsonl.Open(path, jsonl.Options{Policy: jsonl.SkipBad, Lock: jsonl.LockWait}, validJSON)
	if err != nil {
		return fmt.Errorf("open ledger: %w", err)
	}
	if err := a.AppendLine(line); err != nil {
		a.Close()
		return err
	}
	return a.Close()
}

func validJSON(_ int, b []byte) error {
	var e Entry
	return json.Unmarshal(b, &e)
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

// Read returns the ledger's entries in order. Lines that do not parse (a
// torn write) are skipped and counted in damaged. A missing file is an
// empty ledger.
func Read(path string) (entries []Entry, damaged int, err error) {
	res, err := jsonl.ScanFile(path, jsonl.SkipBad, func(_ int, b []byte) error {
		var e Entry
		if err := json.Unmarshal(b, &e); err != nil {
			return err
		}
		entries = append(entries, e)
		return nil
	})
	if errors.Is(err, os.ErrNotExist) {
		return nil, 0, nil
	}
	if err != nil {
		return entries, res.Skipped, fmt.Errorf("read ledger: %w", err)
	}
	return entries, res.Skipped, nil
}
