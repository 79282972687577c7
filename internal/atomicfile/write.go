package atomicfile

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// Mode is the permission every file written here ends with.
const Mode os.FileMode = 0o644

// Write replaces path with what fn writes to w. When fn or any step fails,
// path is left as it was and the temporary file is removed. A path that is
// a device or a pipe (/dev/stdout) is written in place: there is no file
// to replace, and renaming over a device would remove it.
func Write(path string, fn func(w io.Writer) error) error {
	if st, err := os.Stat(path); err == nil && !st.Mode().IsRegular() && !st.IsDir() {
		return writeInPlace(path, fn)
	}
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	tmp := f.Name()
	committed := false
	defer func() {
		if !committed {
			f.Close()
			os.Remove(tmp)
		}
	}()
	if err := fn(f); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := commit(f, path); err != nil {
		return err
	}
	committed = true
	return nil
}

func writeInPlace(path string, fn func(w io.Writer) error) error {
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := fn(f); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// WriteFile replaces path with data.
func WriteFile(path string, data []byte) error {
	return Write(path, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// Build replaces path with a file that fn creates itself at tmp, a path in
// a fresh private folder beside path, for writers that take a file name
// rather than a writer (SQLite and DuckDB create their own files). Side
// files the writer leaves next to tmp (journals) are removed.
func Build(path string, fn func(tmp string) error) error {
	dir, err := os.MkdirTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer os.RemoveAll(dir)
	tmp := filepath.Join(dir, filepath.Base(path))
	if err := fn(tmp); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	f, err := os.OpenFile(tmp, os.O_RDWR, 0)
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := commit(f, path); err != nil {
		f.Close()
		return err
	}
	return nil
}

// commit syncs and closes f, gives it Mode, renames it to path and syncs
// the folder. f is closed when commit returns nil.
func commit(f *os.File, path string) error {
	if err := f.Chmod(Mode); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("write %s: sync: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(f.Name(), path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := SyncDir(filepath.Dir(path)); err != nil {
		return fmt.Errorf("write %s: sync folder: %w", path, err)
	}
	return nil
}
