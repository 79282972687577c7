package dataset_test

import (
	"bytes"
	"os"
	"testing"
)

func bytesOf(t *testing.T, path string) *bytes.Reader {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return bytes.NewReader(b)
}
