package compare

import (
	"encoding/hex"
	"encoding/json"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/sqlgym/sqlgym"
)

var wide = os.Getenv("DIFF_WIDE") != ""

func diffValue(rng *rand.Rand) sqlgym.Value {
	if wide {
		switch rng.IntN(4) {
		case 0:
			return F(float64(rng.IntN(3)))
		case 1:
			return T([]string{"a", "1"}[rng.IntN(2)])
		}
		return I(int64(rng.IntN(3)))
	}
	switch rng.IntN(14) {
	case 0:
		return sqlgym.Null()
	case 1, 2:
		return I(int64(rng.IntN(12)))
	case 3:
		return F(float64(rng.IntN(12)))
	case 4:
		return F([]float64{2.5, 0.333, 0.3333, 1e16, 1e-5, 0.1, 9.995, 10.0, 1.005}[rng.IntN(9)])
	case 5, 6:
		return T([]string{"a", "A", "b", " a", "1", "2.50", "", "NULL", "true", "False", " 7 ", "10", "9", "x y", "nan", "1e3"}[rng.IntN(16)])
	case 7:
		return D([]string{"1.00", "0.5", "0.1", "2", "12.50", "-3.0"}[rng.IntN(6)])
	case 8:
		return sqlgym.Bool(rng.IntN(2) == 1)
	case 9:
		return sqlgym.Bytes([]byte{'a', byte(rng.IntN(3))})
	case 10:
		return I([]int64{9007199254740993, -5, 100}[rng.IntN(3)])
	}
	return sqlgym.Date([]string{"2024-01-01", "2024-02-29"}[rng.IntN(2)])
}

type jv struct {
	K string  `json:"k"`
	I int64   `json:"i,omitempty"`
	F float64 `json:"f,omitempty"`
	S string  `json:"s,omitempty"`
}

func enc(r *sqlgym.ResultSet) [][]jv {
	out := [][]jv{}
	for _, row := range r.Rows {
		jr := []jv{}
		for _, v := range row {
			x := jv{K: v.Kind.String(), I: v.Int, F: v.Float, S: v.Str}
			if v.Kind == sqlgym.KindBytes {
				x.S = hex.EncodeToString([]byte(v.Str))
			}
			jr = append(jr, x)
		}
		out = append(out, jr)
	}
	return out
}

func TestZZDiffDump(t *testing.T) {
	path := os.Getenv("DIFF_OUT")
	if path == "" {
		t.Skip("DIFF_OUT not set")
	}
	rng := rand.New(rand.NewPCG(42, uint64(len(os.Getenv("DIFF_WIDE")))))
	type rec struct {
		Pred, Gold [][]jv
		PC, GC     int
		Opt        Options
		V          map[Mode]Verdict
	}
	var out []rec
	for i := 0; i < 6000; i++ {
		cols, rows := 1+rng.IntN(3), rng.IntN(5)
		if wide {
			cols, rows = 1+rng.IntN(6), rng.IntN(9)
		}
		gold := res(cols)
		for r := 0; r < rows; r++ {
			row := make([]sqlgym.Value, cols)
			for c := range row {
				row[c] = diffValue(rng)
			}
			gold.Rows = append(gold.Rows, row)
		}
		pred := mutate(rng, gold)
		if rng.IntN(4) == 0 && len(pred.Rows) > 0 { // same cell, another kind
			r, c := rng.IntN(len(pred.Rows)), rng.IntN(pred.NumCols())
			pred.Rows[r][c] = diffValue(rng)
		}
		if rng.IntN(10) == 0 { // an extra column
			p := res(pred.NumCols() + 1)
			for _, row := range pred.Rows {
				p.Rows = append(p.Rows, append(append([]sqlgym.Value(nil), row...), diffValue(rng)))
			}
			pred = p
		}
		opt := Options{GoldOrdered: rng.IntN(2) == 0, IgnoreOrder: rng.IntN(2) == 0}
		if rng.IntN(4) == 0 && cols > 1 {
			opt.ConditionCols = []int{rng.IntN(cols)}
		}
		v := map[Mode]Verdict{}
		for _, m := range Modes {
			v[m] = Compare(m, pred, gold, opt)
		}
		out = append(out, rec{enc(pred), enc(gold), pred.NumCols(), gold.NumCols(), opt, v})
	}
	b, _ := json.Marshal(out)
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}
