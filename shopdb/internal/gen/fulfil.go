package gen

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

type payment struct {
	id       int
	order    *order
	at       time.Time
	amount   int // cents
	method   string
	status   string
	refunded time.Time // zero unless status is refunded
}

type shipment struct {
	id        int
	order     *order
	carrier   string
	tracking  string
	shipped   time.Time
	delivered time.Time // zero while in transit
}

var (
	methods       = []string{"card", "paypal", "bank_transfer", "gift_card"}
	methodWeights = []int{58, 24, 10, 8}
)

// fulfil walks each order through its life until asOf and records the
// payments and shipments that life left behind; the status is where it
// stopped. Only what already happened before asOf exists.
func (s *shop) fulfil(r *rng) {
	for _, o := range s.orders {
		s.fulfilOne(r, o)
	}
	// Ids follow time, as auto-increment keys would.
	slices.SortStableFunc(s.payments, func(a, b *payment) int { return a.at.Compare(b.at) })
	for i, p := range s.payments {
		p.id = i + 1
	}
	slices.SortStableFunc(s.shipments, func(a, b *shipment) int { return a.shipped.Compare(b.shipped) })
	for i, sh := range s.shipments {
		sh.id = i + 1
	}
}

func (s *shop) fulfilOne(r *rng, o *order) {
	pay := func(at time.Time, method, status string) *payment {
		p := &payment{order: o, at: at, amount: o.total, method: method, status: status}
		s.payments = append(s.payments, p)
		return p
	}
	attempt := o.placedAt.Add(time.Duration(r.between(30, 600)) * time.Second)
	// The last weeks before the snapshot are the holiday rush: orders wait
	// longer to ship and travel longer, so some are still on their way.
	lastDays := !o.date.Before(asOf.AddDate(0, 0, -10))
	recent := !o.date.Before(asOf.AddDate(0, 0, -21))
	switch {
	case r.percent(6):
		o.status = "cancelled"
		if r.percent(50) {
			pay(attempt, "card", "failed")
		}
		return
	case (lastDays && r.percent(25)) || r.percent(1):
		o.status = "pending"
		if r.percent(25) {
			pay(attempt, pick(r, methods), "failed")
		}
		return
	}
	if r.percent(8) {
		pay(attempt, "card", "failed")
		attempt = attempt.Add(time.Duration(r.between(120, 2400)) * time.Second)
	}
	p := pay(attempt, methods[r.weighted(methodWeights)], "completed")
	o.status = "paid"

	if r.percent(2) {
		// Cancelled after paying, before shipping: refunded, never shipped.
		back := attempt.Add(time.Duration(r.between(2, 72)) * time.Hour)
		if back.Before(asOf) {
			p.status, p.refunded, o.status = "refunded", back, "refunded"
			return
		}
	}

	var waitDays int
	switch r.weighted([]int{80, 15, 5}) {
	case 0:
		waitDays = r.between(0, 2)
		if lastDays {
			waitDays = r.between(3, 9)
		} else if recent {
			waitDays = r.between(1, 6)
		}
	case 1:
		waitDays = r.between(3, 6)
	default:
		waitDays = r.between(7, 20) // back-ordered
	}
	shipped := at(midnight(attempt).AddDate(0, 0, waitDays), r.between(8*3600, 20*3600-1))
	if !shipped.After(attempt) {
		shipped = shipped.AddDate(0, 0, 1)
	}
	if !shipped.Before(asOf) {
		return // paid, waiting to ship
	}
	sh := &shipment{order: o, shipped: shipped}
	sh.carrier = pick(r, o.customer.country.carriers)
	sh.tracking = trackingNumber(r, sh.carrier)
	s.shipments = append(s.shipments, sh)
	o.status = "shipped"

	var transit int
	switch r.weighted([]int{85, 12, 3}) {
	case 0:
		transit = r.between(1, 5)
	case 1:
		transit = r.between(6, 12)
	default:
		transit = r.between(14, 30) // customs, or a lost-and-found parcel
	}
	if recent {
		transit += r.between(2, 7)
	}
	delivered := at(midnight(shipped).AddDate(0, 0, transit), r.between(9*3600, 21*3600-1))
	lost := r.percent(2)
	if lost || !delivered.Before(asOf) {
		return // in transit: delivered_at stays NULL
	}
	sh.delivered, o.delivered = delivered, delivered
	o.status = "delivered"

	if r.percent(5) {
		back := at(midnight(delivered).AddDate(0, 0, r.between(3, 25)), r.between(8*3600, 22*3600-1))
		if back.Before(asOf) {
			p.status, p.refunded, o.status = "refunded", back, "refunded"
		}
	}
}

// trackingNumber makes a number in the rough shape each carrier uses.
func trackingNumber(r *rng, carrier string) string {
	digits := func(n int) string {
		var b strings.Builder
		for range n {
			b.WriteByte(byte('0' + r.intn(10)))
		}
		return b.String()
	}
	letters := func(n int) string {
		var b strings.Builder
		for range n {
			b.WriteByte(byte('A' + r.intn(26)))
		}
		return b.String()
	}
	switch carrier {
	case "UPS":
		return "1Z" + letters(3) + digits(3) + "0" + digits(9)
	case "FedEx":
		return digits(12)
	case "USPS":
		return "9400" + digits(18)
	case "DHL":
		return digits(10)
	case "Royal Mail", "La Poste":
		return letters(2) + digits(9) + map[string]string{"Royal Mail": "GB", "La Poste": "FR"}[carrier]
	case "Canada Post":
		return digits(16)
	}
	panic(fmt.Sprintf("gen: no tracking format for carrier %q", carrier))
}
