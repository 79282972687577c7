package jsonl

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

type rec struct {
	N int `json:"n"`
}

func parse(got *[]int) func(int, []byte) error {
	return func(_ int, b []byte) error {
		var r rec
		if err := json.Unmarshal(b, &r); err != nil {
			return err
		}
		*got = append(*got, r.N)
		return nil
	}
}

func write(t *testing.T, s string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "f.jsonl")
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestStrictNamesFileAndLine(t *testing.T) {
	path := write(t, "{\"n\":1}\n\n{\"n\":2}\n{oops\n{\"n\":3}\n")
	var got []int
	_, err := ScanFile(path, Strict, parse(&got))
	if err == nil || !strings.HasPrefix(err.Error(), path+":4: ") {
		t.Fatalf("err = %v, want %s:4: ...", err, path)
	}
}

func TestStrictAcceptsAFileWithoutFinalNewline(t *testing.T) {
	var got []int
	res, err := ScanFile(write(t, "{\"n\":1}\n{\"n\":2}"), Strict, parse(&got))
	if err != nil || len(got) != 2 || !res.Unterminated {
		t.Fatalf("got %v %+v %v", got, res, err)
	}
}

func TestTornTailSkipsOnlyTheLastLine(t *testing.T) {
	var got []int
	res, err := ScanFile(write(t, "{\"n\":1}\n{\"n\":2}\n{\"n\":"), TornTail, parse(&got))
	if err != nil || len(got) != 2 || res.Skipped != 1 || res.TornAt != 16 {
		t.Fatalf("got %v %+v %v", got, res, err)
	}
	// The same damage before the end is not a torn write: it is reported.
	got = nil
	_, err = ScanFile(write(t, "{\"n\":1}\n{\"n\":\n{\"n\":3}\n"), TornTail, parse(&got))
	if err == nil || !strings.Contains(err.Error(), ":2: ") {
		t.Fatalf("err = %v, want line 2 reported", err)
	}
}

func TestSkipBadCountsEveryRefusedLine(t *testing.T) {
	var got []int
	res, err := ScanFile(write(t, "{\"n\":1}\nxx\n{\"n\":3}\nyy\n{\"n\":5}\n"), SkipBad, parse(&got))
	if err != nil || len(got) != 3 || res.Skipped != 2 {
		t.Fatalf("got %v %+v %v", got, res, err)
	}
}

func TestOpenRepairsATornTailBeforeAppending(t *testing.T) {
	path := write(t, "{\"n\":1}\n{\"n\":2}\n{\"n\":3")
	var got []int
	a, res, err := Open(path, Options{Policy: TornTail}, parse(&got))
	if err != nil {
		t.Fatal(err)
	}
	if res.Skipped != 1 || len(got) != 2 {
		t.Fatalf("scan: %v %+v", got, res)
	}
	if err := a.Append(rec{N: 4}); err != nil {
		t.Fatal(err)
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	if string(b) != "{\"n\":1}\n{\"n\":2}\n{\"n\":4}\n" {
		t.Fatalf("file after repair and append:\n%s", b)
	}
}

func TestOpenEndsAnUnterminatedWholeLine(t *testing.T) {
	path := write(t, "{\"n\":1}")
	var got []int
	a, _, err := Open(path, Options{Policy: TornTail}, parse(&got))
	if err != nil {
		t.Fatal(err)
	}
	a.Append(rec{N: 2})
	a.Close()
	b, _ := os.ReadFile(path)
	if string(b) != "{\"n\":1}\n{\"n\":2}\n" {
		t.Fatalf("file:\n%q", b)
	}
}

func TestASecondAppenderIsRefusedNamingTheHolder(t *testing.T) {
	path := filepath.Join(t.TempDir(), "tasks.jsonl")
	a, _, err := Open(path, Options{Policy: TornTail, Lock: LockOrFail}, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = Open(path, Options{Policy: TornTail, Lock: LockOrFail}, nil)
	var le *LockedError
	if !errors.As(err, &le) {
		t.Fatalf("second Open: err = %v, want *LockedError", err)
	}
	if want := "process " + itoa(os.Getpid()); !strings.Contains(le.Error(), want) {
		t.Fatalf("error %q does not name the holder (%s)", le, want)
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	b, _, err := Open(path, Options{Policy: TornTail, Lock: LockOrFail}, nil)
	if err != nil {
		t.Fatalf("Open after the first closed: %v", err)
	}
	b.Close()
}

func TestLockWaitWaitsForTheHolder(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ledger.jsonl")
	a, _, err := Open(path, Options{Policy: SkipBad, Lock: LockWait}, nil)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error)
	go func() {
		b, _, err := Open(path, Options{Policy: SkipBad, Lock: LockWait}, nil)
		if err == nil {
			err = b.AppendLine([]byte(`{"n":2}`))
			b.Close()
		}
		done <- err
	}()
	a.AppendLine([]byte(`{"n":1}`))
	a.Close()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(path)
	if string(got) != "{\"n\":1}\n{\"n\":2}\n" {
		t.Fatalf("ledger:\n%s", got)
	}
}

func TestLongLinesUpToTheLimit(t *testing.T) {
	long := `{"n":7,"pad":"` + strings.Repeat("x", 200_000) + `"}`
	var got []int
	if _, err := ScanFile(write(t, long+"\n"), Strict, parse(&got)); err != nil || len(got) != 1 || got[0] != 7 {
		t.Fatalf("got %v, %v", got, err)
	}
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}

// Marshal leaves HTML characters to the encoder that writes its output:
// escaped by a default encoder, kept by one with SetEscapeHTML(false).
func TestMarshalLeavesEscapingToTheEncoder(t *testing.T) {
	b, err := Marshal(map[string]string{"sql": "a < b && c > d"})
	if err != nil || string(b) != `{"sql":"a < b && c > d"}` {
		t.Fatalf("Marshal = %s, %v", b, err)
	}
	var buf bytes.Buffer
	if err := json.NewEncoder(&buf).Encode(json.RawMessage(b)); err != nil || buf.String() != `{"sql":"a \u003c b \u0026\u0026 c \u003e d"}`+"\n" {
		t.Fatalf("a default encoder wrote %s (%v)", buf.String(), err)
	}
}
