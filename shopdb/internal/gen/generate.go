package gen

import (
	"bytes"
	"time"
)

// Facts the data is built to hold; shopdb's tests check them against the
// loaded database.
const (
	Customers = 120
	Orders    = 300
)

// seed fixes the data. Each stage draws from its own stream (seed, stage),
// so changing how reviews are drawn does not reshuffle the customers.
const seed = 0x5eed_5409_2023_2024

const (
	stageCustomers = iota + 1
	stageProducts
	stageOrders
	stageFulfil
	stageReviews
)

// The data covers orders placed in 2023 and 2024 and is a snapshot taken
// at asOf: nothing happens at or after it.
var (
	firstDay = day(2023, 1, 1)
	lastDay  = day(2024, 12, 31)
	asOf     = day(2025, 1, 1)
)

func day(y int, m time.Month, d int) time.Time { return time.Date(y, m, d, 0, 0, 0, 0, time.UTC) }

// at returns day d at the given second of the day.
func at(d time.Time, second int) time.Time { return d.Add(time.Duration(second) * time.Second) }

// midnight truncates t to its day.
func midnight(t time.Time) time.Time { return day(t.Year(), t.Month(), t.Day()) }

// shop is the whole database while it is being built.
type shop struct {
	customers []*customer
	products  []*product
	orders    []*order
	items     []*orderItem
	payments  []*payment
	shipments []*shipment
	reviews   []*review
}

// SQL returns the complete text of shop.sql: header, schema, then every
// row as multi-row INSERT statements. Same bytes on every call.
func SQL() []byte {
	s := &shop{}
	s.makeCustomers(newRNG(seed, stageCustomers))
	s.makeProducts(newRNG(seed, stageProducts))
	s.makeOrders(newRNG(seed, stageOrders))
	s.fulfil(newRNG(seed, stageFulfil))
	s.makeReviews(newRNG(seed, stageReviews))
	var b bytes.Buffer
	b.WriteString(header)
	b.WriteString(schema)
	b.WriteString("\n" + DataMarker + "\n\n")
	s.writeRows(&b)
	return b.Bytes()
}
