package testenv

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/sqlgym/sqlgym/internal/jsonl"
)

// Postgres returns the DSN of the test PostgreSQL server from
// SQLGYM_TEST_POSTGRES after checking that it answers. When it is unset or
// unreachable the test is skipped, or fails when SQLGYM_REQUIRE_POSTGRES=1.
func Postgres(t testing.TB) string {
	t.Helper()
	dsn := os.Getenv("SQLGYM_TEST_POSTGRES")
	if dsn == "" {
		missing(t, "SQLGYM_REQUIRE_POSTGRES",
			"PostgreSQL tests skipped: set SQLGYM_TEST_POSTGRES=postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable")
		return ""
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		missing(t, "SQLGYM_REQUIRE_POSTGRES", "PostgreSQL at SQLGYM_TEST_POSTGRES does not answer: "+err.Error())
		return ""
	}
	conn.Close(ctx)
	return dsn
}

// SharedData returns the absolute path of the project's shared/data folder
// (../shared/data from the repository root). When it is absent the test is
// skipped, or fails when SQLGYM_REQUIRE_DATA=1.
func SharedData(t testing.TB) string {
	t.Helper()
	if d := os.Getenv("SQLGYM_SHARED_DATA"); d != "" {
		return d
	}
	_, file, _, _ := runtime.Caller(0)
	root := filepath.Join(filepath.Dir(file), "..", "..")
	dir, err := filepath.Abs(filepath.Join(root, "..", "shared", "data"))
	if err == nil {
		if _, err = os.Stat(filepath.Join(dir, "README.md")); err == nil {
			return dir
		}
	}
	missing(t, "SQLGYM_REQUIRE_DATA", "public data tests skipped: ../shared/data not found (set SQLGYM_SHARED_DATA)")
	return ""
}

// CopyFile copies src into t.TempDir() and returns the copy's path, so a
// test never touches the shared original.
func CopyFile(t testing.TB, src string) string {
	t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatalf("copy %s: %v", src, err)
	}
	dst := filepath.Join(t.TempDir(), filepath.Base(src))
	if err := os.WriteFile(dst, b, 0o644); err != nil {
		t.Fatalf("copy %s: %v", src, err)
	}
	return dst
}

// UniqueName returns a fresh lower-case identifier with the given prefix,
// for a test's own PostgreSQL schema or database.
func UniqueName(prefix string) string {
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	return prefix + "_" + hex.EncodeToString(b)
}

func missing(t testing.TB, requireVar, msg string) {
	t.Helper()
	if os.Getenv(requireVar) == "1" {
		t.Fatalf("%s (and %s=1 requires it)", msg, requireVar)
	}
	t.Skip(msg)
}

// SharedGolds returns every gold query (with its alternatives when
// withAlternatives) of the public question files under shared/data, in
// file order. It skips or fails like SharedData.
func SharedGolds(t testing.TB, withAlternatives bool) []string {
	t.Helper()
	root := SharedData(t)
	files, err := filepath.Glob(filepath.Join(root, "*", "*.jsonl"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no question files under %s (%v)", root, err)
	}
	var golds []string
	for _, path := range files {
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		_, err = jsonl.Scan(f, path, jsonl.Strict, func(_ int, b []byte) error {
			var q struct {
				Gold string   `json:"gold_sql"`
				Alt  []string `json:"gold_sql_alternatives"`
			}
			if err := json.Unmarshal(b, &q); err != nil {
				return err
			}
			golds = append(golds, q.Gold)
			if withAlternatives {
				golds = append(golds, q.Alt...)
			}
			return nil
		})
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
	}
	return golds
}
