package shopdb_test

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestGenerateTargetsExist checks that every `go run DIR` in this
// package's go:generate lines names a folder holding a main package, so
// moving a generator (the shop-variant one lives beside variants) cannot
// silently break `go generate ./shopdb`, whose full run takes minutes.
func TestGenerateTargetsExist(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	line := regexp.MustCompile(`(?m)^//go:generate go run (\S+)`)
	found := 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range line.FindAllStringSubmatch(string(b), -1) {
			found++
			dir := m[1]
			if !isMain(t, dir) {
				t.Errorf("%s: go:generate runs %s, which holds no main package", f, dir)
			}
		}
	}
	if found < 2 {
		t.Fatalf("found %d go:generate go run lines, want the shop and shop-variant generators", found)
	}
}

// isMain reports whether dir holds a non-test Go file of package main.
func isMain(t *testing.T, dir string) bool {
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Logf("%s: %v", dir, err)
		return false
	}
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".go") || strings.HasSuffix(e.Name(), "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), filepath.Join(dir, e.Name()), nil, parser.PackageClauseOnly)
		if err == nil && f.Name.Name == "main" {
			return true
		}
	}
	return false
}
