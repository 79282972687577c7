package link

import (
	"slices"
	"testing"
)

func TestSplitNameCamelSnakeAndDigits(t *testing.T) {
	for in, want := range map[string][]string{
		"EmployeePayHistory": {"employee", "pay", "history"},
		"first_name":         {"first", "name"},
		"HTMLPage":           {"html", "page"},
		"sbCustId":           {"sb", "cust", "id"},
		"car_1__cars_data":   {"car", "1", "cars", "data"},
		"How many singers?":  {"how", "many", "singers"},
	} {
		if got := splitName(in); !slices.Equal(got, want) {
			t.Errorf("splitName(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestStemFoldsPluralsNotNames(t *testing.T) {
	for in, want := range map[string]string{
		"singers": "singer", "countries": "country", "boxes": "box", "status": "status",
		"class": "class", "paris": "paris", "car": "car",
	} {
		if got := stem(in); got != want {
			t.Errorf("stem(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestStopAndWeakWordsDoNotLinkAlone(t *testing.T) {
	for _, w := range []string{"the", "what", "how", "many", "show", "id", "name", "does", "x"} {
		if isContent(stem(w)) {
			t.Errorf("%q links on its own", w)
		}
	}
	for _, w := range []string{"singer", "salary", "stadium"} {
		if !isContent(w) {
			t.Errorf("%q does not link", w)
		}
	}
}

func TestGluedNamesMatchAtTheEndOrBeforeAnID(t *testing.T) {
	q := map[string]bool{"customer": true, "produc": true}
	if g := glued("sbcustomer", q); g != "customer" {
		t.Errorf("sbcustomer: %q", g)
	}
	if g := glued("customerid", q); g != "customer" {
		t.Errorf("customerid: %q", g)
	}
	if g := glued("production", q); g != "" {
		t.Errorf("production matched %q: a prefix must be followed by an id suffix", g)
	}
}
