package gen

import (
	"slices"
	"time"
)

// reviewPhrases by star rating (index 0 is one star). A review's text is one
// or two of them; some carry apostrophes so that quoting is exercised.
var reviewPhrases = [5][]string{
	{
		"Broke after two weeks.",
		"Not as described.",
		"Arrived damaged and support never answered.",
		"Waste of money.",
		"Stopped working after a few days.",
		"Would not buy again.",
	},
	{
		"Cheap materials.",
		"Smaller than expected.",
		"Does the job, barely.",
		"It's okay but overpriced.",
		"The colour doesn't match the photos.",
	},
	{
		"Average quality for the price.",
		"Fine, nothing special.",
		"Does what it says.",
		"Delivery was slow but the product is fine.",
		"Decent, though the instructions were confusing.",
	},
	{
		"Good value.",
		"Works well.",
		"Nice quality, fast delivery.",
		"Happy with it so far.",
		"Would buy again.",
		"Solid product, minor flaws.",
	},
	{
		"Excellent!",
		"Exactly what I needed.",
		"Great quality, highly recommend.",
		"Love it.",
		"Better than I expected.",
		"Perfect gift, my sister loved it.",
		"Five stars, no complaints.",
	},
}

// ratingWeights: reviews lean positive, with a bump at one star, the usual
// J shape of shop reviews.
var ratingWeights = []int{10, 7, 12, 26, 45}

type review struct {
	id       int
	product  *product
	customer *customer
	rating   int
	text     string
	hasText  bool
	at       time.Time
}

// makeReviews lets customers review products they received: only items of
// delivered orders (including those returned later) and at most one review
// per customer and product, written after delivery and before asOf.
func (s *shop) makeReviews(r *rng) {
	type key struct{ customer, product int }
	seen := map[key]bool{}
	for _, o := range s.orders {
		if o.delivered.IsZero() {
			continue
		}
		returned := o.status == "refunded"
		for _, it := range o.items {
			k := key{o.customer.id, it.product.id}
			if seen[k] || !r.percent(33) {
				continue
			}
			when := at(midnight(o.delivered).AddDate(0, 0, r.between(1, 45)), r.between(7*3600, 24*3600-1))
			if !when.Before(asOf) {
				continue
			}
			seen[k] = true
			rv := &review{product: it.product, customer: o.customer, at: when}
			if returned {
				rv.rating = r.weighted([]int{45, 30, 15, 7, 3}) + 1
			} else {
				rv.rating = r.weighted(ratingWeights) + 1
			}
			switch {
			case r.percent(24):
				// stars only: NULL text
			case r.percent(2):
				rv.hasText = true // submitted an empty box: '' rather than NULL
			default:
				rv.hasText = true
				phrases := reviewPhrases[rv.rating-1]
				i := r.intn(len(phrases))
				rv.text = phrases[i]
				if r.percent(40) {
					j := (i + 1 + r.intn(len(phrases)-1)) % len(phrases)
					rv.text += " " + phrases[j]
				}
			}
			s.reviews = append(s.reviews, rv)
		}
	}
	slices.SortStableFunc(s.reviews, func(a, b *review) int { return a.at.Compare(b.at) })
	for i, rv := range s.reviews {
		rv.id = i + 1
	}
}
