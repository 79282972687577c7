package compare

import (
	"strings"

	"github.com/sqlgym/sqlgym"
)

// OrderPolicy says when row order matters in the strict and multiset modes.
// The names and meanings are Text2SQL-RLVR's order_policy
// (lmnst/text2sql-rlvr, src/text2sql_rlvr/rewards/compare.py:33-47).
// The other modes follow their own scorer's rule and ignore it.
type OrderPolicy string

const (
	// OrderDefault is the mode's own default: OrderIgnore in strict,
	// OrderGoldOrderBy in multiset.
	OrderDefault OrderPolicy = ""
	// OrderIgnore compares rows as a multiset only. It is strict's
	// default because an ORDER BY with ties leaves tied rows in an
	// unspecified order, and marking such answers wrong is reward noise.
	OrderIgnore OrderPolicy = "ignore"
	// OrderGoldOrderBy also requires the gold's row order when the gold
	// has a top-level ORDER BY (Options.GoldOrdered).
	OrderGoldOrderBy OrderPolicy = "gold_order_by"
	// OrderAlways always requires the gold's row order.
	OrderAlways OrderPolicy = "always"
)

// OrderPolicies lists the policies a user may name.
var OrderPolicies = []OrderPolicy{OrderIgnore, OrderGoldOrderBy, OrderAlways}

// ParseOrder reads an order policy; the empty string is OrderDefault.
// Unlike the original, which raises on an unknown name at every
// comparison, the name is checked once, up front.
func ParseOrder(s string) (OrderPolicy, error) {
	s = strings.ToLower(strings.TrimSpace(s))
	if s == "" {
		return OrderDefault, nil
	}
	for _, p := range OrderPolicies {
		if string(p) == s {
			return p, nil
		}
	}
	return "", sqlgym.Userf("valid order policies: ignore, gold_order_by, always", "unknown order policy %q", s)
}

// TakesOrder reports whether mode m takes an order policy.
func (m Mode) TakesOrder() bool { return m == Strict || m == Multiset }

// Resolve is the policy that applies in mode m: p itself, or m's default
// when p is OrderDefault.
func (p OrderPolicy) Resolve(m Mode) OrderPolicy {
	if p != OrderDefault {
		return p
	}
	if m == Multiset {
		return OrderGoldOrderBy
	}
	return OrderIgnore
}

// rowsOrdered reports whether row order matters for a gold prepared in
// mode m with options o. In testsuite it is the official quirk the caller
// computed (GoldOrdered); in strict and multiset the policy decides.
func rowsOrdered(m Mode, o Options) bool {
	if !m.TakesOrder() {
		return o.GoldOrdered
	}
	switch o.Order.Resolve(m) {
	case OrderAlways:
		return true
	case OrderGoldOrderBy:
		return o.GoldOrdered
	}
	return false
}
