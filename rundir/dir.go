package rundir

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/sqlgym/sqlgym/internal/atomicfile"
	"github.com/sqlgym/sqlgym/internal/jsonl"
)

// File names inside a run directory.
const (
	SamplesFile  = "samples.jsonl"
	ManifestFile = "manifest.json"
	SummaryFile  = "summary.json"
)

// ReadManifest reads dir/manifest.json.
func ReadManifest(dir string) (*Manifest, error) {
	var m Manifest
	if err := readJSON(filepath.Join(dir, ManifestFile), &m); err != nil {
		return nil, err
	}
	return &m, nil
}

// ReadSummary reads dir/summary.json.
func ReadSummary(dir string) (*Summary, error) {
	var s Summary
	if err := readJSON(filepath.Join(dir, SummaryFile), &s); err != nil {
		return nil, err
	}
	return &s, nil
}

func readJSON(path string, v any) error {
	b, err := os.ReadFile(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("%s: not a run (no %s): %w", filepath.Dir(path), filepath.Base(path), err)
		}
		return fmt.Errorf("read %s: %w", path, err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// WriteJSON writes v to path durably and atomically (see atomicfile).
func WriteJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(path, append(b, '\n'))
}

// ReadSamples reads dir/samples.jsonl. A torn last line (a run killed
// mid-write) is ignored; a later duplicate of a key replaces the earlier
// one, so a sample is never counted twice. A bad line elsewhere is an
// error naming it. A missing file holds no samples.
func ReadSamples(dir string) ([]Sample, error) {
	var sc sampleScan
	_, err := jsonl.ScanFile(filepath.Join(dir, SamplesFile), jsonl.TornTail, sc.line)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	return sc.out, err
}

// sampleScan collects samples, the last line of a key winning.
type sampleScan struct {
	out   []Sample
	index map[Key]int
}

func (sc *sampleScan) line(_ int, b []byte) error {
	var s Sample
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	if sc.index == nil {
		sc.index = map[Key]int{}
	}
	if i, ok := sc.index[s.Key()]; ok {
		sc.out[i] = s
	} else {
		sc.index[s.Key()] = len(sc.out)
		sc.out = append(sc.out, s)
	}
	return nil
}

// Appender appends samples to a run's samples.jsonl, one complete line per
// write; safe for concurrent use. The caller holds the run folder's lock
// (eval does), so it takes none of its own.
type Appender struct{ a *jsonl.Appender }

// OpenAppender opens dir/samples.jsonl for appending, first cutting a torn
// last line left by a crash, and returns the samples already there.
func OpenAppender(dir string) (*Appender, []Sample, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, nil, fmt.Errorf("create run folder: %w", err)
	}
	var sc sampleScan
	a, _, err := jsonl.Open(filepath.Join(dir, SamplesFile), jsonl.Options{Policy: jsonl.TornTail}, sc.line)
	if err != nil {
		return nil, nil, err
	}
	return &Appender{a: a}, sc.out, nil
}

// Append writes one sample as one line to the file, so a crash after
// Append returns never loses it.
func (a *Appender) Append(s *Sample) error { return a.a.Append(s) }

// Close syncs and closes the file.
func (a *Appender) Close() error { return a.a.Close() }
