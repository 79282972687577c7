package sqltext

import (
	"testing"

	"github.com/sqlgym/sqlgym/internal/testenv"
)

// TestPublicGolds runs every gold of the public data through the package:
// each is one statement that looks like SQL, its tokens give it back,
// Normalize is idempotent on it, and the two ORDER BY rules disagree only
// where the substring rule is fooled.
func TestPublicGolds(t *testing.T) {
	golds := testenv.SharedGolds(t, true)
	if len(golds) < 1000 {
		t.Fatalf("only %d golds read", len(golds))
	}
	ordered, quirk, disagree := 0, 0, 0
	for _, g := range golds {
		checkCover(t, g)
		if n := CountStatements(g); n != 1 {
			t.Errorf("CountStatements(%q) = %d", g, n)
		}
		if !LooksLikeSQL(g) {
			t.Errorf("LooksLikeSQL(%q) = false", g)
		}
		n := Normalize(g)
		if Normalize(n) != n {
			t.Errorf("Normalize not idempotent on %q", g)
		}
		if Normalize(RemoveDistinct(g)) == "" {
			t.Errorf("RemoveDistinct emptied %q", g)
		}
		top, sub := HasTopLevelOrderBy(g), ContainsOrderByQuirk(g)
		if top {
			ordered++
		}
		if sub {
			quirk++
		}
		if top != sub {
			disagree++
			// A sound top-level ORDER BY the substring misses needs odd
			// spacing; the reverse needs ORDER BY nested or quoted.
			if top && ContainsOrderByQuirk(Normalize(g)) == false {
				t.Errorf("top-level ORDER BY not visible even normalized: %q", g)
			}
		}
	}
	t.Logf("%d golds: %d with a top-level ORDER BY, %d with the substring, %d disagree", len(golds), ordered, quirk, disagree)
}
