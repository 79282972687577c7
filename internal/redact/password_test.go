package redact

import (
	"strings"
	"testing"
)

// Passwords are masked whatever characters they hold, as typed on a
// command line (issue 25: a tab or a space left them in the ledger).
func TestArgsMaskPasswordsWithAnyCharacter(t *testing.T) {
	for _, pw := range []string{"pa ss", "pa\tss", "p@ss", "p@ss word", "pa/ss", "pa%20ss", "p:w", " lead", "trail\t", "ü ñ"} {
		arg := "--db=shop=postgres://reader:" + pw + "@127.0.0.1:5432/shop?sslmode=disable"
		for _, got := range []string{strings.Join(Args([]string{"sqlgym", "verify", arg}), " "), URL("postgres://reader:" + pw + "@127.0.0.1/shop")} {
			if strings.Contains(got, pw) {
				t.Errorf("password %q left in %q", pw, got)
			}
			if !strings.Contains(got, "reader:"+Mask+"@127.0.0.1") {
				t.Errorf("password %q: %q does not keep the user and the host", pw, got)
			}
		}
	}
	// Two separate arguments stay two URLs.
	got := Args([]string{"--db", "a=postgres://u:p q@h1/a", "--db", "b=postgres://v:r s@h2/b"})
	if got[1] != "a=postgres://u:"+Mask+"@h1/a" || got[3] != "b=postgres://v:"+Mask+"@h2/b" {
		t.Errorf("two URLs: %q", got)
	}
}

func TestDropPassword(t *testing.T) {
	for in, want := range map[string]string{
		"postgres://reader:s3cret@127.0.0.1:5432/db?sslmode=disable&schema=shop_v1": "postgres://reader@127.0.0.1:5432/db?schema=shop_v1&sslmode=disable",
		"postgres://reader:p%20w%40x@h/db":                                          "postgres://reader@h/db",
		"postgres://h/db?password=hunter2&sslmode=disable":                          "postgres://h/db?sslmode=disable",
		"postgres://reader@h/db":                                                    "postgres://reader@h/db",
		"sqlite:/tmp/x.sqlite":                                                      "sqlite:/tmp/x.sqlite",
		"duckdb:/tmp/my dir/x.duckdb":                                               "duckdb:/tmp/my dir/x.duckdb",
	} {
		if got := DropPassword(in); got != want {
			t.Errorf("DropPassword(%q) = %q, want %q", in, got, want)
		}
	}
	// Unparsable (a raw space in the password): masked rather than kept.
	if got := DropPassword("postgres://reader:p w@h/db"); strings.Contains(got, "p w") {
		t.Errorf("DropPassword kept a raw password: %q", got)
	}
}
