package screen

import (
	"context"
	"testing"
)

var weekdayRow = boundaryRow{
	Table: "customers", Column: "signup_date", Decl: "DATE", Literal: "'2022-01-01'",
	Gold: "signup_date >= '2022-01-01'", Mutant: "signup_date > '2022-01-01'",
	Others: []string{"signup_date < '2023-01-01'", "strftime('%w', signup_date) IN ('1')"},
}

func TestBoundaryRow(t *testing.T) {
	v, err := weekdayRow.run(context.Background())
	if err != nil || v.Refuter != 1 {
		t.Fatalf("weekday row: refuter %d, %v; want the weekday condition (1)", v.Refuter, err)
	}
	monday := weekdayRow
	monday.Literal, monday.Gold, monday.Mutant = "'2024-01-01'", "signup_date >= '2024-01-01'", "signup_date > '2024-01-01'"
	monday.Others = []string{"signup_date < '2025-01-01'", "strftime('%w', signup_date) IN ('1')"}
	if v, err := monday.run(context.Background()); err != nil || v.Refuter != -1 {
		t.Errorf("a Monday bound: refuter %d, %v; want none", v.Refuter, err)
	}
	// The literal must be where the comparisons disagree.
	off := weekdayRow
	off.Mutant = "signup_date > '2021-06-01'"
	if _, err := off.run(context.Background()); err == nil {
		t.Error("comparisons that agree on the row were taken as its boundary")
	}
	bad := weekdayRow
	bad.Decl = "DATE); DROP TABLE x; --"
	if _, err := bad.run(context.Background()); err == nil {
		t.Error("a declared type that is not a type name was pasted into SQL")
	}
}

// BenchmarkBoundaryRow is one proof's question to SQLite, uncached: a
// temporary file made, opened and asked three one-row queries.
func BenchmarkBoundaryRow(b *testing.B) {
	for b.Loop() {
		if _, err := weekdayRow.run(context.Background()); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkBoundaryRowCached is the same question asked again, as the
// variant generator asks it for every weak mutant of a gold.
func BenchmarkBoundaryRowCached(b *testing.B) {
	for b.Loop() {
		if _, err := weekdayRow.refute(); err != nil {
			b.Fatal(err)
		}
	}
}
