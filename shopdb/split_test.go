package shopdb

import (
	"slices"
	"testing"
)

func TestSplitStatements(t *testing.T) {
	text := `-- header; with a semicolon
-- and a second line

CREATE TABLE t (
    a TEXT, -- a comment; with a semicolon
    "b;c" INTEGER
);

-- Data

INSERT INTO t VALUES
('it''s; fine', 1),
('-- not a comment', 2);
SELECT 1`
	want := []string{
		"CREATE TABLE t (\n    a TEXT, -- a comment; with a semicolon\n    \"b;c\" INTEGER\n)",
		"INSERT INTO t VALUES\n('it''s; fine', 1),\n('-- not a comment', 2)",
		"SELECT 1",
	}
	if got := splitStatements(text); !slices.Equal(got, want) {
		t.Errorf("splitStatements:\n got %q\nwant %q", got, want)
	}
	if got := splitStatements("-- only a comment\n;\n  ;"); len(got) != 0 {
		t.Errorf("comments and empty statements gave %q", got)
	}
}
