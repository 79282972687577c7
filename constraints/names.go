package constraints

import (
	"strings"

	"github.com/sqlgym/sqlgym"
)

// norm lower-cases a name and keeps its letters and digits: customer_id,
// CustomerId and customerid are one name.
func norm(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// singular undoes the common English plurals of table names (countries,
// classes, singers), which is all a column named after its parent needs.
func singular(s string) string {
	switch {
	case strings.HasSuffix(s, "ies") && len(s) > 3:
		return s[:len(s)-3] + "y"
	case strings.HasSuffix(s, "sses"), strings.HasSuffix(s, "xes"), strings.HasSuffix(s, "ches"):
		return s[:len(s)-2]
	case strings.HasSuffix(s, "ss"):
		return s
	case strings.HasSuffix(s, "s") && len(s) > 1:
		return s[:len(s)-1]
	}
	return s
}

// keySuffixes are the endings of names that identify a row.
var keySuffixes = []string{"id", "code", "key", "no", "num", "number"}

// keyish reports whether a column is named like a key: id, *_id, code,
// key, no, number (after norm).
func keyish(name string) bool {
	n := norm(name)
	for _, s := range keySuffixes {
		if strings.HasSuffix(n, s) {
			return true
		}
	}
	return false
}

// stem is a column's name without its key ending: country for country_id.
func stem(name string) string {
	n := norm(name)
	for _, s := range keySuffixes {
		if strings.HasSuffix(n, s) && len(n) > len(s) {
			return n[:len(n)-len(s)]
		}
	}
	return n
}

// class is a declared type's kind, as far as keys care: int, text, real,
// or other (dates, booleans, blobs). An empty type (SQLite's untyped
// column) is text.
func class(c *sqlgym.Column) string {
	u := strings.ToUpper(c.Type)
	switch {
	case strings.Contains(u, "INT"):
		return "int"
	case u == "", strings.Contains(u, "CHAR"), strings.Contains(u, "TEXT"), strings.Contains(u, "CLOB"), strings.Contains(u, "STRING"):
		return "text"
	case strings.Contains(u, "REAL"), strings.Contains(u, "FLOA"), strings.Contains(u, "DOUB"),
		strings.Contains(u, "NUM"), strings.Contains(u, "DEC"):
		return "real"
	}
	return "other"
}

// keyType reports whether a column's type can hold a key: integers and
// text, and a number type when the column is named like a key (Spider
// types ids REAL and NUMERIC; the exact check then asks for whole
// values), never a date or boolean.
func keyType(c *sqlgym.Column) bool {
	switch class(c) {
	case "int", "text":
		return true
	case "real":
		return keyish(c.Name)
	}
	return false
}

// compatible reports whether a child column may refer to a parent key by
// type: both integer, both text, or one of them a NUMERIC.
func compatible(a, b *sqlgym.Column) bool {
	ca, cb := class(a), class(b)
	if ca == cb {
		return true
	}
	return ca == "real" && cb == "int" || ca == "int" && cb == "real"
}

// generic names say nothing about which table they point to.
var generic = map[string]bool{"id": true, "name": true, "code": true, "key": true, "no": true, "num": true, "number": true, "type": true}

// fits scores how well child column x's name says it refers to key k of
// table parent: 0 for no fit, higher is better.
func fits(x, parent, k string) int {
	xn, kn := norm(x), norm(k)
	pn := norm(parent)
	ps := singular(pn)
	last := parent
	if i := strings.LastIndexAny(parent, "_ "); i >= 0 {
		last = parent[i+1:]
	}
	ls := singular(norm(last))
	switch {
	case xn == ps+kn, xn == pn+kn, xn == ps+"id" && generic[kn], xn == ls+kn:
		return 4
	case xn == kn && !generic[xn]:
		return 3
	}
	st := stem(x)
	if st == "" || generic[st] || len(st) < 3 {
		return 0
	}
	switch {
	case st == ps, st == pn, st == ls:
		return 2
	case strings.HasSuffix(ps, st), strings.HasPrefix(ps, st), strings.HasPrefix(kn, st),
		len(ps) >= 4 && strings.HasSuffix(st, ps), len(ls) >= 4 && strings.HasSuffix(st, ls):
		// car_makers for maker, ship for caused_by_ship_id,
		// airports for dest_airport.
		return 1
	}
	return 0
}
