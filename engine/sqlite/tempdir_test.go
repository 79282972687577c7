package sqlite

import (
	"os"
	"sync"
	"testing"
)

var tempOnce struct {
	sync.Once
	dir string
	err error
}

// tempDirOnce is a directory shared by the tests and benchmarks of one
// process, removed by TestMain.
func tempDirOnce() (string, error) {
	tempOnce.Do(func() { tempOnce.dir, tempOnce.err = os.MkdirTemp("", "sqlgym-sqlite-") })
	return tempOnce.dir, tempOnce.err
}

func TestMain(m *testing.M) {
	code := m.Run()
	if tempOnce.dir != "" {
		os.RemoveAll(tempOnce.dir)
	}
	os.Exit(code)
}
