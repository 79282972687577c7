package sqlite

import (
	"context"
	"maps"
	"path/filepath"
	"testing"
)

const collatedDDL = `CREATE TABLE t (
	a TEXT COLLATE NOCASE,
	"b c" VARCHAR(5) NOT NULL COLLATE rtrim, -- a comment, COLLATE NOCASE
	d TEXT COLLATE BINARY,
	e TEXT CHECK (e <> 'x' COLLATE NOCASE),
	[f] TEXT,
	CONSTRAINT u UNIQUE (f COLLATE NOCASE)
)`

func TestCollations(t *testing.T) {
	want := map[string]string{"a": "NOCASE", "b c": "RTRIM"}
	if got := collations(collatedDDL); !maps.Equal(got, want) {
		t.Errorf("collations = %v, want %v", got, want)
	}
	quoted := "CREATE TABLE t ('it''s' TEXT COLLATE NOCASE /* COLLATE RTRIM, x */, `g` TEXT DEFAULT 'a,(b' COLLATE RTRIM)"
	if got, want := collations(quoted), map[string]string{"it's": "NOCASE", "g": "RTRIM"}; !maps.Equal(got, want) {
		t.Errorf("collations of quoted names = %v, want %v", got, want)
	}
	if got := collations("CREATE TABLE t AS SELECT 1 AS a"); len(got) != 0 {
		t.Errorf("a table made by SELECT: %v", got)
	}
}

func TestDescribeCollations(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "c.sqlite")
	if err := Create(ctx, path, []string{collatedDDL}); err != nil {
		t.Fatal(err)
	}
	eng, err := Open(path, Options{PoolSize: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	s, err := eng.Describe(ctx)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, c := range s.Tables[0].Columns {
		got[c.Name] = c.Collation
	}
	want := map[string]string{"a": "NOCASE", "b c": "RTRIM", "d": "", "e": "", "f": ""}
	if !maps.Equal(got, want) {
		t.Errorf("described collations %v, want %v", got, want)
	}
}
