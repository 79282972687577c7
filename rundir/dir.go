package rundir

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
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

// WriteJSON writes v to path atomically (temporary file, then rename).
func WriteJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// ReadSamples reads dir/samples.jsonl. A torn last line (a run killed
// mid-write) is ignored; a later duplicate of a key replaces the earlier
// one, so a sample is never counted twice. A bad line elsewhere is an
// error naming it.
func ReadSamples(dir string) ([]Sample, error) {
	samples, _, err := readSamples(filepath.Join(dir, SamplesFile))
	return samples, err
}

// readSamples also returns the byte length of the well-formed prefix, so
// an appender can cut a torn tail before writing after it.
func readSamples(path string) ([]Sample, int64, error) {
	f, err := os.Open(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, 0, nil
		}
		return nil, 0, fmt.Errorf("open %s: %w", path, err)
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 1<<20)
	var (
		out   []Sample
		index = map[Key]int{}
		good  int64
		line  int
	)
	for {
		b, err := r.ReadBytes('\n')
		if len(b) > 0 && b[len(b)-1] != '\n' {
			// No newline: the last write was cut short. Ignore it.
			break
		}
		if len(b) > 0 {
			line++
			trimmed := bytes.TrimSpace(b)
			if len(trimmed) > 0 {
				var s Sample
				if jerr := json.Unmarshal(trimmed, &s); jerr != nil {
					// A complete but unparsable line is damage, unless it is
					// the last: then it may be a torn write that happened to
					// end in a newline byte.
					if _, perr := r.Peek(1); perr == io.EOF {
						break
					}
					return nil, 0, fmt.Errorf("%s:%d: %w", path, line, jerr)
				}
				if i, ok := index[s.Key()]; ok {
					out[i] = s
				} else {
					index[s.Key()] = len(out)
					out = append(out, s)
				}
			}
			good += int64(len(b))
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, 0, fmt.Errorf("read %s: %w", path, err)
		}
	}
	return out, good, nil
}

// Appender appends samples to a run's samples.jsonl. Each sample is one
// write of one complete line; safe for concurrent use.
type Appender struct {
	mu sync.Mutex
	f  *os.File
}

// OpenAppender opens dir/samples.jsonl for appending, first cutting a torn
// last line left by a crash, and returns the samples already there.
func OpenAppender(dir string) (*Appender, []Sample, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, nil, fmt.Errorf("create run folder: %w", err)
	}
	path := filepath.Join(dir, SamplesFile)
	samples, good, err := readSamples(path)
	if err != nil {
		return nil, nil, err
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return nil, nil, fmt.Errorf("open %s: %w", path, err)
	}
	if err := f.Truncate(good); err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("cut the torn end of %s: %w", path, err)
	}
	if _, err := f.Seek(good, io.SeekStart); err != nil {
		f.Close()
		return nil, nil, err
	}
	return &Appender{f: f}, samples, nil
}

// Append writes one sample as one line and flushes it to the file, so a
// crash after Append returns never loses it.
func (a *Appender) Append(s *Sample) error {
	b, err := json.Marshal(s)
	if err != nil {
		return err
	}
	b = append(b, '\n')
	a.mu.Lock()
	defer a.mu.Unlock()
	if _, err := a.f.Write(b); err != nil {
		return fmt.Errorf("append sample: %w", err)
	}
	return nil
}

// Close syncs and closes the file.
func (a *Appender) Close() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if err := a.f.Sync(); err != nil {
		a.f.Close()
		return err
	}
	return a.f.Close()
}
