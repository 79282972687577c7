package jsonl

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
)

// MaxLine is the longest line the scanner accepts.
const MaxLine = 64 << 20

// Policy says what a scan does with a line its callback refuses.
type Policy int

const (
	// Strict stops at the first refused line with "FILE:LINE: why". For
	// files a person writes (tasks, predictions): a bad line is a mistake
	// to fix, never data to drop.
	Strict Policy = iota
	// TornTail is Strict except for the last line when it looks like a
	// write cut short by a crash: it has no final newline and is refused,
	// or it is refused as broken JSON. That line is skipped, counted, and
	// cut by the next Open. For files sqlgym appends to itself.
	TornTail
	// SkipBad skips and counts every refused line: for a log read for its
	// history (the ledger), where one damaged line must not hide the rest.
	SkipBad
)

// Result describes a scanned file.
type Result struct {
	// Lines is the number of lines read, blank ones included.
	Lines int
	// Skipped counts the lines refused and skipped under TornTail or
	// SkipBad.
	Skipped int
	// Size is the number of bytes read.
	Size int64
	// TornAt is the offset where a torn last line starts, or -1.
	TornAt int64
	// Unterminated reports a last line that was accepted but has no
	// newline (a hand-written file): an appender adds the newline first.
	Unterminated bool
}

// Scan calls fn with each non-blank line of r (spaces trimmed) and its
// 1-based number, applying p to the lines fn refuses. Errors read
// "name:LINE: ...".
func Scan(r io.Reader, name string, p Policy, fn func(line int, b []byte) error) (Result, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	res := Result{TornAt: -1}
	for {
		b, err := readLine(br)
		if len(b) == 0 {
			if err == io.EOF {
				return res, nil
			}
			return res, fmt.Errorf("%s:%d: %w", name, res.Lines+1, err)
		}
		res.Lines++
		start := res.Size
		res.Size += int64(len(b))
		terminated := b[len(b)-1] == '\n'
		last := !terminated
		if terminated {
			if _, perr := br.Peek(1); perr == io.EOF {
				last = true
			}
		}
		t := bytes.TrimSpace(b)
		if len(t) == 0 {
			continue
		}
		ferr := fn(res.Lines, t)
		if ferr == nil {
			res.Unterminated = !terminated
			continue
		}
		torn := last && (!terminated || isBrokenJSON(ferr))
		switch {
		case p == TornTail && torn, p == SkipBad:
			res.Skipped++
			if torn {
				res.TornAt = start
			}
		default:
			return res, fmt.Errorf("%s:%d: %w", name, res.Lines, ferr)
		}
	}
}

// ScanFile is Scan on the file at path.
func ScanFile(path string, p Policy, fn func(line int, b []byte) error) (Result, error) {
	f, err := os.Open(path)
	if err != nil {
		return Result{TornAt: -1}, fmt.Errorf("open %s: %w", path, err)
	}
	defer f.Close()
	return Scan(f, path, p, fn)
}

// readLine returns the next line with its newline, if it has one. At the
// end it returns the bytes read and io.EOF.
func readLine(br *bufio.Reader) ([]byte, error) {
	var line []byte
	for {
		b, err := br.ReadSlice('\n')
		if len(line)+len(b) > MaxLine {
			return nil, fmt.Errorf("line longer than %d MiB", MaxLine>>20)
		}
		line = append(line, b...)
		if err == bufio.ErrBufferFull {
			continue
		}
		return line, err
	}
}

// isBrokenJSON reports whether err is a JSON syntax error: the mark of a
// line whose end was lost, as opposed to a whole line with a wrong field.
func isBrokenJSON(err error) bool {
	var se *json.SyntaxError
	return errors.As(err, &se) || errors.Is(err, io.ErrUnexpectedEOF)
}
