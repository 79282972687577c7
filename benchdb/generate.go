package benchdb

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/sqlgym/sqlgym/engine/sqlite"
)

// Sizes a Config may ask for.
const (
	DefaultSize = 10 << 20
	MinSize     = 256 << 10
	MaxSize     = 1 << 30
	// DefaultSeed is the seed of the database `sqlgym-bench verify` uses
	// unless told otherwise.
	DefaultSeed = 1
)

// bytesPerOrder is what one order costs in the file with its share of
// customers, products, items, payments, reviews and indexes, and
// fixedBytes what the file costs whatever its size, both measured on
// generated files (TestGenerateSize keeps them honest). Past 10 MB an
// order costs a little more, as ids grow longer and b-trees deeper:
// bytesPerDoubling per doubling of the size (measured: 1 GB holds 4.0
// million orders, 266 bytes each).
const (
	bytesPerOrder    = 243
	bytesPerDoubling = 3.4
	fixedBytes       = 60_000
)

// ordersFor is how many orders make a file of size bytes.
func ordersFor(size int64) int {
	per := float64(bytesPerOrder)
	if size > DefaultSize {
		per += bytesPerDoubling * math.Log2(float64(size)/DefaultSize)
	}
	return int(float64(size-fixedBytes) / per)
}

// Config says which database to generate.
type Config struct {
	Seed uint64
	// Size is the target file size in bytes (DefaultSize when zero); the
	// file lands within 5% of it.
	Size int64
}

// Stats describes a generated file.
type Stats struct {
	Path  string         `json:"path"`
	Bytes int64          `json:"bytes"`
	Seed  uint64         `json:"seed"`
	Rows  map[string]int `json:"rows"`
	// Took is the generation time.
	Took time.Duration `json:"took_ns"`
}

// Generate writes the database for cfg to path, which must not exist. The
// rows are built in memory as multi-row INSERTs and written by
// sqlite.Create in one transaction, so the memory needed is about twice
// the file's size (1.8 GB of RSS for 1 GB). 10 MB take about a second.
func Generate(ctx context.Context, path string, cfg Config) (Stats, error) {
	if cfg.Size == 0 {
		cfg.Size = DefaultSize
	}
	if cfg.Size < MinSize || cfg.Size > MaxSize {
		return Stats{}, fmt.Errorf("generate benchmark database: size %d bytes: between %d KB and %d MB", cfg.Size, MinSize>>10, MaxSize>>20)
	}
	start := time.Now()
	g := newGenerator(cfg)
	stmts := g.statements()
	if err := sqlite.Create(ctx, path, stmts); err != nil {
		return Stats{}, fmt.Errorf("generate benchmark database: %w", err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		return Stats{}, fmt.Errorf("generate benchmark database: %w", err)
	}
	return Stats{Path: path, Bytes: fi.Size(), Seed: cfg.Seed, Rows: g.rows, Took: time.Since(start)}, nil
}

// The data spans 2019-01-01 (first signup) to 2024-12-31; orders start
// 2020-01-01.
var (
	epoch       = time.Date(2019, 1, 1, 0, 0, 0, 0, time.UTC)
	firstOrder  = 365 // days after epoch: 2020-01-01
	lastDay     = 2191
	orderSpan   = lastDay - firstOrder + 1
	signupSpan  = 2008 // up to mid-2024
	launchSpan  = 1900
	reviewDelay = 45
)

type generator struct {
	rng  *rand.Rand
	cfg  Config
	days []string // day number -> YYYY-MM-DD
	rows map[string]int

	nOrders, nCustomers, nProducts int
	// per customer and product, what later tables need
	custCountry []string
	custSignup  []int
	prodPrice   []int64 // cents
	// custRank and prodRank map a skewed draw to an id, so that the heavy
	// buyers and best sellers are spread over the id range.
	custRank, prodRank []int
}

func newGenerator(cfg Config) *generator {
	g := &generator{
		rng:  rand.New(rand.NewPCG(cfg.Seed, 0x5eed0fb1d5ca1e)),
		cfg:  cfg,
		rows: map[string]int{},
	}
	g.nOrders = ordersFor(cfg.Size)
	g.nCustomers = g.nOrders/5 + 50
	g.nProducts = g.nOrders/60 + 80
	for d := 0; d <= lastDay+reviewDelay; d++ {
		g.days = append(g.days, epoch.AddDate(0, 0, d).Format("2006-01-02"))
	}
	return g
}

// u is a uniform draw in [0, 1).
func (g *generator) u() float64 { return g.rng.Float64() }

// skewed draws an index in [0, n) with small indexes far more likely: the
// power law of who buys and what sells.
func (g *generator) skewed(n int, power float64) int {
	i := int(float64(n) * math.Pow(g.u(), power))
	return min(i, n-1)
}

func (g *generator) pick(ws []weighted) string {
	total := 0
	for _, w := range ws {
		total += w.weight
	}
	r := g.rng.IntN(total)
	for _, w := range ws {
		if r < w.weight {
			return w.value
		}
		r -= w.weight
	}
	panic("unreachable")
}

func (g *generator) pickIndex(weights []int) int {
	total := 0
	for _, w := range weights {
		total += w
	}
	r := g.rng.IntN(total)
	for i, w := range weights {
		if r < w {
			return i
		}
		r -= w
	}
	panic("unreachable")
}

func (g *generator) timestamp(day, sec int) string {
	return fmt.Sprintf("%s %02d:%02d:%02d", g.days[day], sec/3600, sec/60%60, sec%60)
}

func (g *generator) statements() []string {
	var out []string
	out = append(out, schema...)
	out = append(out, g.customers()...)
	out = append(out, g.products()...)
	out = append(out, g.ordersAndRest()...)
	out = append(out, indexes...)
	return out
}

func (g *generator) customers() []string {
	w := newInserter("customers", g.rows)
	g.custCountry = make([]string, g.nCustomers+1)
	g.custSignup = make([]int, g.nCustomers+1)
	for id := 1; id <= g.nCustomers; id++ {
		fn := firstNames[g.skewed(len(firstNames), 1.6)]
		ln := lastNames[g.skewed(len(lastNames), 1.4)]
		country := g.pick(countries)
		cs := cities[country]
		city := cs[g.skewed(len(cs), 1.5)]
		switch r := g.u(); {
		case r < 0.04:
			city = ""
		case r < 0.06:
			city = strings.ToLower(city)
		case r < 0.07:
			city = strings.ToUpper(city)
		}
		email := ""
		if g.u() >= 0.06 {
			local := strings.ToLower(asciiFold(fn) + "." + asciiFold(ln))
			if g.u() < 0.6 {
				local += strconv.Itoa(g.rng.IntN(100))
			}
			domain := g.pick(domains)
			if g.u() < 0.05 { // typed with capitals
				local = asciiFold(fn) + "." + asciiFold(ln)
				domain = strings.ToUpper(domain[:1]) + domain[1:]
			}
			email = local + "@" + domain
		}
		signup := g.rng.IntN(signupSpan)
		g.custCountry[id], g.custSignup[id] = country, signup
		w.row()
		w.int(int64(id))
		w.text(fn)
		w.text(ln)
		w.textOrNull(email)
		w.textOrNull(city)
		w.text(country)
		w.text(g.pick(segments))
		w.text(g.days[signup])
		w.end()
	}
	g.custRank = g.rng.Perm(g.nCustomers)
	return w.done()
}

func (g *generator) products() []string {
	w := newInserter("products", g.rows)
	g.prodPrice = make([]int64, g.nProducts+1)
	for id := 1; id <= g.nProducts; id++ {
		c := categories[g.pickIndex(categoryWeights)]
		name := adjectives[g.rng.IntN(len(adjectives))] + " " + c.nouns[g.rng.IntN(len(c.nouns))]
		if g.u() < 0.25 { // plain names recur across categories and brands
			name = c.nouns[g.rng.IntN(len(c.nouns))]
		}
		if g.u() < 0.03 {
			name = strings.ToLower(name[:1]) + name[1:]
		}
		brand := ""
		if g.u() >= 0.1 {
			brand = brands[g.skewed(len(brands), 1.3)]
		}
		dollars := c.price * math.Exp(0.55*g.rng.NormFloat64())
		cents := int64(math.Round(dollars*100)) + 1
		if g.u() < 0.45 { // psychological pricing makes ties
			cents = int64(dollars)*100 + 99
		}
		g.prodPrice[id] = cents
		w.row()
		w.int(int64(id))
		w.text(name)
		w.text(c.name)
		w.textOrNull(brand)
		w.cents(cents)
		w.text(g.days[g.rng.IntN(launchSpan)])
		w.end()
	}
	g.prodRank = g.rng.Perm(g.nProducts)
	return w.done()
}

// ordersAndRest writes orders with their items, payments and reviews, in
// time order, so ids grow with time as in a real shop.
func (g *generator) ordersAndRest() []string {
	when := make([]int64, g.nOrders) // day*86400 + second
	for i := range when {
		var day int
		if g.u() < 0.12 { // the Q4 peak: mid-November to the end of December
			year := g.rng.IntN(5)
			day = int(epoch.AddDate(1+year, 10, 14).Sub(epoch).Hours()/24) + g.rng.IntN(47)
		} else { // volume grows over the years
			day = firstOrder + int(float64(orderSpan)*math.Sqrt(g.u()))
		}
		day = min(day, lastDay)
		when[i] = int64(day)*86400 + int64(g.rng.IntN(86400))
	}
	slices.Sort(when)

	ow := newInserter("orders", g.rows)
	iw := newInserter("order_items", g.rows)
	pw := newInserter("payments", g.rows)
	rw := newInserter("reviews", g.rows)
	itemID, payID, reviewID := 0, 0, 0
	for i, t := range when {
		orderID := i + 1
		day, sec := int(t/86400), int(t%86400)
		cust := g.custRank[g.skewed(g.nCustomers, 2.2)] + 1
		if day < g.custSignup[cust] { // nobody orders before signing up
			day = min(g.custSignup[cust]+g.rng.IntN(30), lastDay)
		}
		status := "delivered"
		if lastDay-day < 12 {
			status = []string{"pending", "shipped", "shipped", "delivered"}[g.rng.IntN(4)]
		} else {
			status = g.pick([]weighted{{"delivered", 80}, {"cancelled", 7}, {"returned", 6}, {"shipped", 2}, {"pending", 1}})
		}
		shipTo := g.custCountry[cust]
		if g.u() < 0.03 {
			shipTo = g.pick(countries)
		}
		ow.row()
		ow.int(int64(orderID))
		ow.int(int64(cust))
		ow.text(g.timestamp(day, sec))
		ow.text(status)
		ow.textOrNull(g.pick(channels))
		ow.text(shipTo)
		ow.end()

		n := 1
		for n < 8 && g.u() < 0.45 {
			n++
		}
		total := 0.0
		var bought []int
		for k := 0; k < n; k++ {
			prod := g.prodRank[g.skewed(g.nProducts, 2)] + 1
			q := 1
			switch r := g.u(); {
			case r < 0.68:
			case r < 0.88:
				q = 2
			case r < 0.94:
				q = 3
			default:
				q = 4 + g.rng.IntN(7)
			}
			unit := g.prodPrice[prod]
			if g.u() < 0.1 { // bought on sale, or before a price change
				unit = unit * 85 / 100
			}
			disc := 0
			if g.u() >= 0.72 {
				disc = 5 * (1 + g.rng.IntN(5))
			}
			total += float64(q) * float64(unit) * (1 - float64(disc)/100)
			itemID++
			iw.row()
			iw.int(int64(itemID))
			iw.int(int64(orderID))
			iw.int(int64(prod))
			iw.int(int64(q))
			iw.cents(unit)
			if disc == 0 {
				iw.null()
			} else {
				iw.cents(int64(disc))
			}
			iw.end()
			bought = append(bought, prod)
		}
		amount := int64(math.Round(total))

		pay := func(status string, paid bool) {
			payID++
			pw.row()
			pw.int(int64(payID))
			pw.int(int64(orderID))
			pw.text(g.pick(methods))
			pw.cents(amount)
			pw.text(status)
			if paid {
				s := sec + 30 + g.rng.IntN(3600)
				pw.text(g.timestamp(day+s/86400, s%86400))
			} else {
				pw.null()
			}
			pw.end()
		}
		switch status {
		case "pending":
			if g.u() < 0.5 {
				pay("failed", false)
			}
		case "cancelled":
			if g.u() < 0.3 {
				pay("failed", false)
			}
		default:
			if g.u() < 0.08 {
				pay("failed", false)
			}
			if status == "returned" {
				pay("refunded", true)
			} else {
				pay("completed", true)
			}
		}

		if status == "delivered" {
			for _, prod := range bought {
				if g.u() >= 0.14 {
					continue
				}
				rday := day + 3 + g.rng.IntN(reviewDelay-3)
				if rday > lastDay {
					continue
				}
				rating := 1 + g.pickIndex([]int{9, 7, 12, 27, 45})
				text := ""
				isNull := true
				switch r := g.u(); {
				case r < 0.38:
				case r < 0.40:
					isNull = false // the empty string, which is not NULL
				default:
					ts := reviewTexts[rating]
					text, isNull = ts[g.rng.IntN(len(ts))], false
				}
				reviewID++
				rw.row()
				rw.int(int64(reviewID))
				rw.int(int64(prod))
				rw.int(int64(cust))
				rw.int(int64(rating))
				if isNull {
					rw.null()
				} else {
					rw.text(text)
				}
				rw.text(g.timestamp(rday, g.rng.IntN(86400)))
				rw.end()
			}
		}
	}
	out := ow.done()
	out = append(out, iw.done()...)
	out = append(out, pw.done()...)
	return append(out, rw.done()...)
}

// asciiFold turns the letters of the name lists into what goes into an
// e-mail address.
func asciiFold(s string) string {
	return strings.NewReplacer("ü", "u", "è", "e", "é", "e", "á", "a", "í", "i", "ë", "e", "ó", "o", "'", "").Replace(s)
}
