package sqlgym

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
)

// MaxJSONLLine is the longest line a JSONL reader accepts.
const MaxJSONLLine = 64 << 20

// ScanJSONL calls fn with each non-blank line of a JSONL stream and its
// 1-based line number. An error from fn stops the scan and comes back as
// "NAME:LINE: error", so every JSONL file sqlgym reads reports problems
// the same way.
func ScanJSONL(r io.Reader, name string, fn func(line int, b []byte) error) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), MaxJSONLLine)
	line := 0
	for sc.Scan() {
		line++
		b := bytes.TrimSpace(sc.Bytes())
		if len(b) == 0 {
			continue
		}
		if err := fn(line, b); err != nil {
			return fmt.Errorf("%s:%d: %w", name, line, err)
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("%s:%d: %w", name, line+1, err)
	}
	return nil
}
