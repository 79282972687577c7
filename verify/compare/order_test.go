package compare

import (
	"errors"
	"testing"

	"github.com/sqlgym/sqlgym"
)

func TestParseOrder(t *testing.T) {
	cases := map[string]OrderPolicy{
		"": OrderDefault, "ignore": OrderIgnore, " Gold_Order_By ": OrderGoldOrderBy, "ALWAYS": OrderAlways,
	}
	for in, want := range cases {
		if got, err := ParseOrder(in); err != nil || got != want {
			t.Errorf("ParseOrder(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	_, err := ParseOrder("sorted")
	var ue *sqlgym.UserError
	if !errors.As(err, &ue) {
		t.Fatalf("unknown policy: want a UserError, got %v", err)
	}
}

// Which modes take the policy, and what each resolves to.
func TestOrderPolicyPerMode(t *testing.T) {
	pred := res(1, row(I(2)), row(I(1)))
	gold := res(1, row(I(1)), row(I(2)))
	cases := []struct {
		mode        Mode
		policy      OrderPolicy
		goldOrderBy bool
		match       bool
	}{
		// multiset's default is gold_order_by: its rule before policies.
		{Multiset, OrderDefault, true, false},
		{Multiset, OrderDefault, false, true},
		{Multiset, OrderIgnore, true, true},
		{Multiset, OrderAlways, false, false},
		// strict's default is ignore.
		{Strict, OrderDefault, true, true},
		{Strict, OrderGoldOrderBy, true, false},
		// testsuite follows the official "order by" substring only.
		{TestSuite, OrderIgnore, true, false},
		{TestSuite, OrderAlways, false, true},
		// bird collapses rows into a set whatever the policy.
		{Bird, OrderAlways, true, true},
	}
	for _, c := range cases {
		v := Compare(c.mode, pred, gold, Options{GoldOrdered: c.goldOrderBy, Order: c.policy})
		if v.Match != c.match {
			t.Errorf("%s, policy %q, gold ordered %v: got %+v, want match=%v", c.mode, c.policy, c.goldOrderBy, v, c.match)
		}
	}
	if !Strict.TakesOrder() || !Multiset.TakesOrder() || TestSuite.TakesOrder() || Bird.TakesOrder() || Spider2.TakesOrder() || F1.TakesOrder() {
		t.Error("only strict and multiset take an order policy")
	}
	if OrderDefault.Resolve(Strict) != OrderIgnore || OrderDefault.Resolve(Multiset) != OrderGoldOrderBy || OrderAlways.Resolve(Strict) != OrderAlways {
		t.Error("Resolve: wrong defaults")
	}
}
