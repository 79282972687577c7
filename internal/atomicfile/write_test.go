package atomicfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
)

func entries(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names
}

func TestWriteReplacesWithMode0644AndLeavesNoTemp(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.jsonl")
	if err := os.WriteFile(path, []byte("old\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(path, []byte("new\n")); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	if string(b) != "new\n" {
		t.Fatalf("content %q, want new", b)
	}
	st, _ := os.Stat(path)
	if st.Mode().Perm() != 0o644 {
		t.Fatalf("mode %v, want 0644", st.Mode().Perm())
	}
	if got := entries(t, dir); len(got) != 1 {
		t.Fatalf("folder holds %v, want only out.jsonl", got)
	}
}

func TestFailedWriteKeepsTheOldFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.jsonl")
	os.WriteFile(path, []byte("old\n"), 0o644)
	boom := errors.New("render failed")
	err := Write(path, func(w io.Writer) error {
		w.Write([]byte("half"))
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("err = %v, want the render error", err)
	}
	if b, _ := os.ReadFile(path); string(b) != "old\n" {
		t.Fatalf("old file changed to %q", b)
	}
	if got := entries(t, dir); len(got) != 1 {
		t.Fatalf("temporary file left behind: %v", got)
	}
}

func TestConcurrentWritersUseDistinctTemporaryFiles(t *testing.T) {
	// A fixed temporary name lets two writers clobber each other's half
	// file; unique names leave one whole file either way.
	dir := t.TempDir()
	path := filepath.Join(dir, "m.json")
	done := make(chan error, 8)
	for i := 0; i < 8; i++ {
		go func(i int) {
			body := []byte{byte('a' + i), byte('a' + i), byte('a' + i), '\n'}
			done <- Write(path, func(w io.Writer) error {
				for _, c := range body {
					if _, err := w.Write([]byte{c}); err != nil {
						return err
					}
				}
				return nil
			})
		}(i)
	}
	for i := 0; i < 8; i++ {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
	b, _ := os.ReadFile(path)
	if len(b) != 4 || b[0] != b[1] || b[1] != b[2] || b[3] != '\n' {
		t.Fatalf("file mixes two writers: %q", b)
	}
}

func TestBuildRenamesTheFileAndDropsSideFiles(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "shop.sqlite")
	err := Build(path, func(tmp string) error {
		if filepath.Dir(tmp) == dir {
			t.Errorf("temporary path %s is not in a private folder", tmp)
		}
		if err := os.WriteFile(tmp+"-journal", []byte("j"), 0o600); err != nil {
			return err
		}
		return os.WriteFile(tmp, []byte("db"), 0o600)
	})
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); string(b) != "db" {
		t.Fatalf("content %q", b)
	}
	if got := entries(t, dir); len(got) != 1 {
		t.Fatalf("folder holds %v, want only shop.sqlite", got)
	}
	st, _ := os.Stat(path)
	if st.Mode().Perm() != 0o644 {
		t.Fatalf("mode %v", st.Mode().Perm())
	}
}

func TestWriteIntoMissingFolderFails(t *testing.T) {
	err := WriteFile(filepath.Join(t.TempDir(), "no", "such", "f"), []byte("x"))
	if err == nil {
		t.Fatal("write into a missing folder succeeded")
	}
}

func TestWriteToAFullDeviceFailsAndKeepsTheDevice(t *testing.T) {
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip("no /dev/full on this system")
	}
	err := Write("/dev/full", func(w io.Writer) error {
		_, err := w.Write([]byte("results\n"))
		return err
	})
	if err == nil {
		t.Fatal("writing to /dev/full succeeded")
	}
	st, err := os.Stat("/dev/full")
	if err != nil || st.Mode()&os.ModeDevice == 0 {
		t.Fatalf("/dev/full is no longer a device: %v %v", st, err)
	}
}

// BenchmarkWriteFile is the cost of one durable 4 KiB write (two fsyncs
// and a rename) on the test's file system.
func BenchmarkWriteFile(b *testing.B) {
	path := filepath.Join(b.TempDir(), "manifest.json")
	data := make([]byte, 4096)
	for b.Loop() {
		if err := WriteFile(path, data); err != nil {
			b.Fatal(err)
		}
	}
}
