package jsonl

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The holder line names the command, never its secrets: lock files sit in
// run folders that get shared.
func TestLockHolderHasNoSecrets(t *testing.T) {
	saved := os.Args
	defer func() { os.Args = saved }()
	os.Args = []string{"sqlgym", "eval", "--db", "x=postgres://u:hunter2@127.0.0.1/x", "--base-url", "http://me:hunter2@h/v1"}
	path := filepath.Join(t.TempDir(), ".run.lock")
	l, err := Acquire(path, false)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Release()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), "hunter2") || !strings.Contains(string(b), "sqlgym eval") {
		t.Fatalf("lock holder line %q", b)
	}
}
