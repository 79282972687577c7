package testenv

import (
	"path/filepath"
	"testing"
)

// RedTeamFile copies one reproduction of ../shared/redteam (beside the
// public data) into t.TempDir() and returns the copy's path. It skips like
// SharedData when the shared folder is absent.
func RedTeamFile(t testing.TB, name string) string {
	t.Helper()
	return CopyFile(t, filepath.Join(filepath.Dir(SharedData(t)), "redteam", name))
}
