package verify

import (
	"testing"

	"github.com/sqlgym/sqlgym/verify/compare"
)

// Every label ModeLabel writes reads back as the settings that wrote it.
func TestParseModeLabelRoundTrips(t *testing.T) {
	for _, c := range []Config{
		{Mode: compare.Multiset},
		{Mode: compare.Multiset, Variants: true},
		{Mode: compare.Strict, Order: compare.OrderAlways},
		{Mode: compare.Strict, Order: compare.OrderAlways, Variants: true},
		{Mode: compare.Bird, Variants: true},
		{Mode: compare.TestSuite, Variants: true},
	} {
		label := c.ModeLabel()
		got, err := ParseModeLabel(label)
		if err != nil {
			t.Fatalf("%q: %v", label, err)
		}
		if got.Mode != c.Mode || got.Order != c.Order || got.Variants != c.Variants {
			t.Errorf("%q read back as %+v, want %+v", label, got, c)
		}
	}
	if _, err := ParseModeLabel("multiset sideways"); err == nil {
		t.Error(`"multiset sideways" accepted`)
	}
}
