package jsonl

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
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

// A clean Close removes the lock file, so finished runs keep none; a
// lock file left by a crash is taken over by the next writer.
func TestCloseRemovesTheLockFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "samples.jsonl")
	a, _, err := Open(path, Options{Policy: TornTail, Lock: LockOrFail}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(LockPath(path)); err != nil {
		t.Fatalf("lock file while open: %v", err)
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(LockPath(path)); !os.IsNotExist(err) {
		t.Fatalf("lock file after a clean Close: stat err = %v, want it gone", err)
	}

	// A crash leaves the file behind, unlocked: the next writer takes it.
	if err := os.WriteFile(LockPath(path), []byte("process 1 (sqlgym eval)\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	b, _, err := Open(path, Options{Policy: TornTail, Lock: LockOrFail}, nil)
	if err != nil {
		t.Fatalf("taking over a crashed writer's lock file: %v", err)
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(LockPath(path)); !os.IsNotExist(err) {
		t.Fatalf("taken-over lock file after Close: stat err = %v, want it gone", err)
	}
}

// A waiter that gets the lock after the holder removed the file must not
// think it holds it: a third process would lock a new file of the same
// name. Acquire locks the file that is at the path.
func TestWaiterLocksTheFileAtThePath(t *testing.T) {
	path := filepath.Join(t.TempDir(), ".x.lock")
	first, err := Acquire(path, false)
	if err != nil {
		t.Fatal(err)
	}
	got := make(chan *Lock)
	go func() {
		l, err := Acquire(path, true)
		if err != nil {
			t.Error(err)
		}
		got <- l
	}()
	time.Sleep(50 * time.Millisecond)
	if err := first.Release(); err != nil {
		t.Fatal(err)
	}
	second := <-got
	defer second.Release()
	if _, err := Acquire(path, false); err == nil {
		t.Fatal("a third Acquire got the lock the waiter holds")
	}
}
