package main

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func write(t *testing.T, dir, name, body string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestReportFromFiles runs the report command on two answers, one flipped
// and judged wrong, one flipped and not judged, and checks what it prints
// and the flips it leaves to judge.
func TestReportFromFiles(t *testing.T) {
	dir := t.TempDir()
	preds := write(t, dir, "p.jsonl", `{"task_id":"t1","sample":1,"system":"a","sql":"SELECT 1"}
{"task_id":"t2","sample":1,"system":"a","sql":"SELECT 2"}
`)
	base := write(t, dir, "r0.jsonl", `{"task_id":"t1","sample":1,"sql":"SELECT 1","outcome":"correct"}
{"task_id":"t2","sample":1,"sql":"SELECT 2","outcome":"correct"}
`)
	withV := write(t, dir, "r1.jsonl", `{"task_id":"t1","sample":1,"sql":"SELECT 1","outcome":"wrong"}
{"task_id":"t2","sample":1,"sql":"SELECT 2","outcome":"wrong"}
`)
	judg := write(t, dir, "j.jsonl", `{"generator":"g","system":"a","task_id":"t1","sql_sha256":"e004ebd5b5532a4b85984a62f8ad48a81aa3460c1ca07701f386135d72cdecf5","db_copy":"plain","label":"wrong","reason":"r"}
`)
	// The hash above is SELECT 1's (sha256sum): t1 is judged, t2 is not.
	todo := filepath.Join(dir, "todo.jsonl")
	var out, errb bytes.Buffer
	err := run([]string{"report", "--predictions", preds, "--base", base, "--variants", withV, "--judgments", judg,
		"--generator", "g", "--copy", "plain", "--unjudged", todo}, &out, &errb)
	if err != nil {
		t.Fatal(err, errb.String())
	}
	if !strings.Contains(out.String(), "judged 1 of all flips: wrong 1, right 0") || !strings.Contains(out.String(), "not yet judged: 1 distinct flips") {
		t.Errorf("report:\n%s", out.String())
	}
	b, err := os.ReadFile(todo)
	if err != nil || strings.Count(string(b), "\n") != 1 || !strings.Contains(string(b), `"task_id":"t2"`) {
		t.Fatalf("unjudged file: %q, %v", b, err)
	}
	// A second run does not overwrite the file it wrote unless asked.
	err = run([]string{"report", "--predictions", preds, "--base", base, "--variants", withV, "--judgments", judg,
		"--generator", "g", "--copy", "plain", "--unjudged", todo}, &out, &errb)
	if err == nil || !strings.Contains(err.Error(), "--replace") {
		t.Fatalf("err = %v, want the existing file refused", err)
	}
}

func TestUsageErrors(t *testing.T) {
	t.Setenv("SQLGYM_CORPUS_DIR", "")
	var out, errb bytes.Buffer
	for _, args := range [][]string{nil, {"judge"}, {"report", "--copy", "plain"}, {"build", "--out", "x"}} {
		if err := run(args, &out, &errb); !errors.Is(err, errUsage) {
			t.Errorf("%v: err = %v, want a usage error", args, err)
		}
	}
}
