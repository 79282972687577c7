package stats_test

import (
	"fmt"

	"github.com/sqlgym/sqlgym/stats"
)

func ExamplePassAtK() {
	// 5 samples, 2 right: a draw of 3 misses only if it takes all 3 wrong
	// ones, 1 of C(5,3) = 10 draws.
	fmt.Println(stats.PassAtK(5, 2, 3))
	// All of 2 draws right: C(3,2)/C(5,2) = 3/10.
	fmt.Printf("%.1f\n", stats.PassHatK(5, 3, 2))
	// Output:
	// 0.9
	// 0.3
}

func ExampleParseCriterion() {
	c, err := stats.ParseCriterion("lo > 1%")
	if err != nil {
		panic(err)
	}
	r := stats.PairedResult{Delta: stats.Interval{Value: 0.04, Lo: 0.015, Hi: 0.065}}
	fmt.Println(c, c.Check(r), stats.VerdictOf(r.Delta))
	// Output: lo>0.01 true proven gain
}

func ExampleMcNemarExact() {
	// 10 tasks fixed, 2 broken: P = 2 * (1 + 12 + 66) / 2^12.
	fmt.Printf("%.4f\n", stats.McNemarExact(10, 2))
	// Output: 0.0386
}
