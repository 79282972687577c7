package verify_test

import (
	"os"
	"path/filepath"
)

func mkdirRename(src, dst string) error {
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	return os.Rename(src, dst)
}
