package catalog

import (
	"testing"
)

// A PostgreSQL URL written without its password (db_variants) gets the
// password of the --db URL for the same user and server; other users,
// servers and URLs that carry their own password are left alone.
func TestResolveGivesThePasswordBack(t *testing.T) {
	cat, err := New(Config{CacheDir: t.TempDir(), Refs: []string{
		"shop=postgres://reader:pa%20ss%40x@db.example:5432/shop?sslmode=disable&schema=shop",
		"other=postgres://admin:adminpw@db.example:5432/shop?sslmode=disable",
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer cat.Close()
	for in, want := range map[string]string{
		"postgres://reader@db.example:5432/shop?sslmode=disable&schema=shop_v1": "postgres://reader:pa%20ss%40x@db.example:5432/shop?sslmode=disable&schema=shop_v1",
		"postgres://reader:own@db.example:5432/shop?schema=shop_v2":             "postgres://reader:own@db.example:5432/shop?schema=shop_v2",
		"postgres://reader@elsewhere:5432/shop?schema=shop_v1":                  "postgres://reader@elsewhere:5432/shop?schema=shop_v1",
		"postgres://nobody@db.example:5432/shop?schema=shop_v1":                 "postgres://nobody@db.example:5432/shop?schema=shop_v1",
	} {
		got, err := cat.Resolve(in)
		if err != nil {
			t.Fatalf("Resolve(%q): %v", in, err)
		}
		if got != want {
			t.Errorf("Resolve(%q) = %q, want %q", in, got, want)
		}
	}
}
