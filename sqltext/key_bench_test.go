package sqltext

import "testing"

// BenchmarkKey keys the answer BenchmarkNormalize normalises, once per
// dialect: the verifier keys every distinct answer text of every batch.
func BenchmarkKey(b *testing.B) {
	q := "SELECT * FROM (SELECT c.country, sum(o.total_amount) FROM customers c JOIN orders o ON o.customer_id = c.customer_id GROUP BY c.country ORDER BY 2 DESC LIMIT 5) LIMIT 1"
	for _, d := range allDialects {
		b.Run(string(d), func(b *testing.B) {
			b.SetBytes(int64(len(q)))
			b.ReportAllocs()
			for b.Loop() {
				Key(d, q)
			}
		})
	}
}
