package engine

import (
	"testing"

	"github.com/sqlgym/sqlgym"
)

// A PostgreSQL URL selects its schema with schema=, which the server does
// not know: ParseURL takes it out of the DSN, leaving the other parameters
// as they were, and String puts it back.
func TestParseURLSchema(t *testing.T) {
	for _, c := range []struct{ url, dsn, schema, str string }{
		{"postgres://u@h:5432/db", "postgres://u@h:5432/db", "", "postgres://u@h:5432/db"},
		{"postgres://u@h/db?sslmode=disable&schema=shop_v1", "postgres://u@h/db?sslmode=disable", "shop_v1",
			"postgres://u@h/db?sslmode=disable&schema=shop_v1"},
		{"postgresql://u@h/db?schema=shop&sslmode=disable&application_name=x", "postgresql://u@h/db?sslmode=disable&application_name=x", "shop",
			"postgresql://u@h/db?sslmode=disable&application_name=x&schema=shop"},
		{"postgres://u@h/db?schema=My%20Schema", "postgres://u@h/db", "My Schema", "postgres://u@h/db?schema=My+Schema"},
		// A parameter merely ending in schema is not it.
		{"postgres://u@h/db?search_schema=x", "postgres://u@h/db?search_schema=x", "", "postgres://u@h/db?search_schema=x"},
	} {
		loc, err := ParseURL(c.url)
		if err != nil {
			t.Fatalf("%s: %v", c.url, err)
		}
		if loc.Dialect != sqlgym.DialectPostgres || loc.DSN != c.dsn || loc.Schema != c.schema {
			t.Errorf("ParseURL(%q) = %+v, want DSN %q, schema %q", c.url, loc, c.dsn, c.schema)
		}
		if got := loc.String(); got != c.str {
			t.Errorf("String of %q = %q, want %q", c.url, got, c.str)
		}
		again, err := ParseURL(loc.String())
		if err != nil || again != loc {
			t.Errorf("ParseURL(String()) of %q = %+v, %v; want %+v", c.url, again, err, loc)
		}
	}
	if loc, _ := ParseURL("sqlite:/x/schema=1.sqlite"); loc.Schema != "" || loc.Path != "/x/schema=1.sqlite" {
		t.Errorf("a SQLite path is not a PostgreSQL URL: %+v", loc)
	}
}
