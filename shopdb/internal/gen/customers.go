package gen

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

type customer struct {
	id          int
	first, last string
	email       string
	city        string
	hasCity     bool
	country     *country
	signup      time.Time
	activity    int // weight when drawing who places an order; 0 never orders
}

// activityWeights: most customers order now and then, a few very often.
var activityWeights = []int{1, 2, 2, 2, 3, 3, 3, 4, 5, 7}

func (s *shop) makeCustomers(r *rng) {
	used := map[string]bool{}
	for _, n := range namesakes {
		used[n.first+" "+n.last] = true
	}
	var all []*customer
	for ci := range countries {
		c := &countries[ci]
		var mine []namesake
		for _, n := range namesakes {
			if n.country == c.name {
				mine = append(mine, n)
			}
		}
		for k := 0; k < c.customers; k++ {
			cu := &customer{country: c, hasCity: true}
			if k < len(mine) {
				cu.first, cu.last, cu.city = mine[k].first, mine[k].last, mine[k].city
			} else {
				for {
					cu.first, cu.last = pick(r, c.first), pick(r, c.last)
					if !used[cu.first+" "+cu.last] {
						break
					}
				}
				used[cu.first+" "+cu.last] = true
				cu.city = pick(r, c.cities)
			}
			all = append(all, cu)
		}
	}
	if len(all) != Customers {
		panic(fmt.Sprintf("gen: countries hold %d customers, want %d", len(all), Customers))
	}
	// A Canadian in London, Ontario: grouping by city alone merges them
	// with the Londoners of the United Kingdom.
	for _, cu := range all {
		if cu.country.name == "Canada" {
			cu.city = "London"
			break
		}
	}
	start, end := day(2021, 1, 1), day(2024, 10, 31)
	span := int(end.Sub(start).Hours() / 24)
	for _, cu := range all {
		cu.signup = start.AddDate(0, 0, r.intn(span+1))
	}
	// Ids follow sign-up order, as an auto-increment key would.
	slices.SortStableFunc(all, func(a, b *customer) int { return a.signup.Compare(b.signup) })
	for i, cu := range all {
		cu.id = i + 1
		cu.activity = pick(r, activityWeights)
	}
	s.customers = all

	// Quirks, each on customers drawn at random (namesakes excluded, so
	// they stay a clean pair): some never order, some left no city, some
	// typed their city or e-mail in odd case.
	plain := make([]*customer, 0, len(all))
	for _, cu := range all {
		if !isNamesake(cu) && !(cu.country.name == "Canada" && cu.city == "London") {
			plain = append(plain, cu)
		}
	}
	shuffle(r, plain)
	q := 0
	next := func() *customer { q++; return plain[q-1] }
	for range 8 {
		next().activity = 0
	}
	for range 4 {
		next().hasCity = false
	}
	for range 2 {
		cu := next()
		cu.city = strings.ToLower(cu.city)
	}
	cu := next()
	cu.city = strings.ToUpper(cu.city)

	emails := map[string]bool{}
	for _, cu := range all {
		cu.email = email(r, cu, emails)
	}
	for range 3 {
		cu := next()
		local, domain, _ := strings.Cut(cu.email, "@")
		cu.email = titleDots(local) + "@" + strings.ToUpper(domain[:1]) + domain[1:]
	}
}

func isNamesake(cu *customer) bool {
	for _, n := range namesakes {
		if cu.first == n.first && cu.last == n.last {
			return true
		}
	}
	return false
}

// email makes a unique lower-case address in one of the usual shapes.
func email(r *rng, cu *customer, taken map[string]bool) string {
	f, l := fold(cu.first), fold(cu.last)
	var local string
	switch r.intn(5) {
	case 0:
		local = f + "." + l
	case 1:
		local = f + l
	case 2:
		local = f[:1] + "." + l
	case 3:
		local = f + "_" + l
	default:
		local = fmt.Sprintf("%s.%s%02d", f, l, r.intn(100))
	}
	domain := pick(r, emailDomains)
	addr := local + "@" + domain
	for n := 2; taken[addr]; n++ {
		addr = fmt.Sprintf("%s%d@%s", local, n, domain)
	}
	taken[addr] = true
	return addr
}

// fold lower-cases a name and spells it in ASCII.
func fold(name string) string {
	var b strings.Builder
	for _, c := range strings.ToLower(name) {
		if s, ok := asciiFold[c]; ok {
			b.WriteString(s)
		} else {
			b.WriteRune(c)
		}
	}
	return b.String()
}

// titleDots capitalises each dot-separated part: "maria.garcia" becomes
// "Maria.Garcia".
func titleDots(s string) string {
	parts := strings.Split(s, ".")
	for i, p := range parts {
		if p != "" {
			parts[i] = strings.ToUpper(p[:1]) + p[1:]
		}
	}
	return strings.Join(parts, ".")
}
