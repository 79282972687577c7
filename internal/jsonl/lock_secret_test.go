package jsonl

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The command line a lock file records has its passwords masked, white
// space and '@' in them included (issue 25).
func TestLockFileMasksPasswords(t *testing.T) {
	saved := os.Args
	defer func() { os.Args = saved }()
	for _, pw := range []string{"pa ss", "pa\tss", "p@ss w"} {
		os.Args = []string{"sqlgym", "eval", "--db", "shop=postgres://reader:" + pw + "@127.0.0.1:5432/shop", "--out", "runs/a"}
		path := filepath.Join(t.TempDir(), ".ledger.jsonl.lock")
		l, err := Acquire(path, false)
		if err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(path)
		l.Release()
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(b), pw) || !strings.Contains(string(b), "reader:xxxxx@127.0.0.1:5432/shop --out runs/a") {
			t.Errorf("password %q: the lock file holds %q", pw, b)
		}
	}
}
