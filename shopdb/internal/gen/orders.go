package gen

import (
	"fmt"
	"slices"
	"time"
)

type product struct {
	id, category int
	name         string
	price        int // cents
	stock        int
	popularity   int
	// oldPrice, when non-zero, was the list price before priceChanged.
	oldPrice     int
	priceChanged time.Time
}

type order struct {
	id       int
	customer *customer
	date     time.Time
	placedAt time.Time // not stored: payments and shipments follow it
	status   string
	total    int // cents
	items    []*orderItem
	// filled by fulfil
	delivered time.Time // zero unless a shipment arrived
}

type orderItem struct {
	id       int
	order    *order
	product  *product
	quantity int
	price    int // cents
	discount int // percent
}

func (s *shop) makeProducts(r *rng) {
	for i, it := range catalogue {
		p := &product{id: i + 1, category: it.category, name: it.name, price: it.price, popularity: it.popularity}
		p.stock = r.between(5, 400)
		s.products = append(s.products, p)
	}
	ps := slices.Clone(s.products)
	shuffle(r, ps)
	// A few are sold out; a dozen changed price during the two years, so
	// order_items.unit_price disagrees with products.price on older orders.
	for _, p := range ps[:6] {
		p.stock = 0
	}
	from, to := day(2023, 3, 1), day(2024, 9, 30)
	for _, p := range ps[6:18] {
		p.oldPrice = max(p.price+pick(r, priceSteps), 299)
		p.priceChanged = from.AddDate(0, 0, r.intn(int(to.Sub(from).Hours()/24)+1))
	}
}

// dayWeight makes the holiday season and weekends busier.
func dayWeight(d time.Time) int {
	w := 10
	switch d.Month() {
	case time.November:
		w += 6
	case time.December:
		w += 10
	}
	if d.Weekday() == time.Saturday || d.Weekday() == time.Sunday {
		w += 2
	}
	return w
}

var (
	itemCountWeights = []int{30, 27, 20, 13, 7, 3} // 1 to 6 lines
	quantityWeights  = []int{70, 18, 7, 3, 1, 1}   // 1 to 6 units
	discounts        = []int{0, 5, 10, 15, 20, 25, 50}
	discountWeights  = []int{70, 8, 10, 5, 4, 2, 1}
)

func (s *shop) makeOrders(r *rng) {
	var days []time.Time
	var weights []int
	for d := firstDay; !d.After(lastDay); d = d.AddDate(0, 0, 1) {
		days = append(days, d)
		weights = append(weights, dayWeight(d))
	}
	dates := make([]time.Time, Orders)
	for i := range dates {
		dates[i] = days[r.weighted(weights)]
	}
	slices.SortFunc(dates, func(a, b time.Time) int { return a.Compare(b) })

	for i, d := range dates {
		o := &order{id: i + 1, date: d}
		o.customer = s.drawCustomer(r, d)
		o.placedAt = at(d, r.between(6*3600, 24*3600-1))
		s.fillItems(r, o)
		s.orders = append(s.orders, o)
	}
}

// drawCustomer picks who places an order on day d among those signed up
// by then, weighted by how active they are.
func (s *shop) drawCustomer(r *rng, d time.Time) *customer {
	var cands []*customer
	var w []int
	for _, c := range s.customers {
		if c.activity > 0 && !c.signup.After(d) {
			cands = append(cands, c)
			w = append(w, c.activity)
		}
	}
	if len(cands) == 0 {
		panic(fmt.Sprintf("gen: nobody signed up by %s", d.Format(time.DateOnly)))
	}
	return cands[r.weighted(w)]
}

func (s *shop) fillItems(r *rng, o *order) {
	n := r.weighted(itemCountWeights) + 1
	w := make([]int, len(s.products))
	for i, p := range s.products {
		w[i] = p.popularity
	}
	var exact int // in 1/10000 of the currency unit
	for range n {
		k := r.weighted(w)
		w[k] = 0 // each product once per order
		p := s.products[k]
		it := &orderItem{order: o, product: p, price: p.price}
		if p.oldPrice != 0 && o.date.Before(p.priceChanged) {
			it.price = p.oldPrice
		}
		it.quantity = r.weighted(quantityWeights) + 1
		it.discount = discounts[r.weighted(discountWeights)]
		exact += it.quantity * it.price * (100 - it.discount)
		o.items = append(o.items, it)
		it.id = len(s.items) + 1
		s.items = append(s.items, it)
	}
	// Rounded once, half up, on the exact sum: summing per-line rounded
	// amounts, or floats, can land a cent away.
	o.total = (exact + 50) / 100
}
