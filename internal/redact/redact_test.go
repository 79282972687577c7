package redact

import (
	"reflect"
	"strings"
	"testing"
)

func TestArgsMaskEverySecretAndKeepTheRest(t *testing.T) {
	in := []string{"sqlgym", "eval",
		"--db=shop=postgres://reader:s3cret@127.0.0.1:5432/shop?sslmode=disable",
		"--db", "zoo=postgres://host/zoo?password=hunter2&sslmode=disable",
		"--db=kv=host=db user=me password='p w' dbname=x",
		"--api-key", "sk-proj-abcdefghijklmnop",
		"--token=tok123456",
		"--api-key-env=MY_KEY",
		"--base-url=http://u:pw@10.0.0.1:8000/v1",
		"--extra={\"api_key\": \"sk-abcdefgh12345678\"}",
		"--out=runs/a",
	}
	got := strings.Join(Args(in), " ")
	for _, secret := range []string{"s3cret", "hunter2", "p w", "abcdefghijklmnop", "tok123456", ":pw@", "abcdefgh12345678"} {
		if strings.Contains(got, secret) {
			t.Errorf("secret %q left in %s", secret, got)
		}
	}
	for _, kept := range []string{"reader:xxxxx@127.0.0.1:5432/shop?sslmode=disable", "--api-key-env=MY_KEY", "--out=runs/a", "user=me", "sslmode=disable", "--api-key xxxxx", "--token=xxxxx"} {
		if !strings.Contains(got, kept) {
			t.Errorf("%q missing from %s", kept, got)
		}
	}
}

func TestURL(t *testing.T) {
	for in, want := range map[string]string{
		"http://127.0.0.1:8000/v1":            "http://127.0.0.1:8000/v1",
		"https://me:pw@api.example.com/v1":    "https://me:xxxxx@api.example.com/v1",
		"https://me@api.example.com/v1":       "https://me@api.example.com/v1",
		"http://h/v1?api_key=abc&x=1":         "http://h/v1?api_key=xxxxx&x=1",
		"postgres://u:p@h/db?sslmode=disable": "postgres://u:xxxxx@h/db?sslmode=disable",
		"not a url password=abc":              "not a url password=xxxxx",
	} {
		if got := URL(in); got != want {
			t.Errorf("URL(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestMapMasksSecretKeysWithoutChangingTheOriginal(t *testing.T) {
	in := map[string]any{"top_k": 20, "api_key": "k", "nested": map[string]any{"Authorization": "Bearer abc"}}
	got := Map(in)
	want := map[string]any{"top_k": 20, "api_key": Mask, "nested": map[string]any{"Authorization": Mask}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Map = %v, want %v", got, want)
	}
	if in["api_key"] != "k" {
		t.Fatal("Map changed its input")
	}
}

func TestTextKeepsOrdinaryText(t *testing.T) {
	for _, s := range []string{"SELECT password FROM users", "runs/base-k16", "tasks.jsonl:12: missing \"sql\"", "task-key-1"} {
		if got := Text(s); got != s {
			t.Errorf("Text(%q) = %q", s, got)
		}
	}
}
