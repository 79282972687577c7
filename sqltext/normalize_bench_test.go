package sqltext

import "testing"

// BenchmarkNormalize normalises a typical answer: the verifier does it once
// per distinct answer text of every batch.
func BenchmarkNormalize(b *testing.B) {
	q := "SELECT * FROM (SELECT c.country, sum(o.total_amount) FROM customers c JOIN orders o ON o.customer_id = c.customer_id GROUP BY c.country ORDER BY 2 DESC LIMIT 5) LIMIT 1"
	b.SetBytes(int64(len(q)))
	for b.Loop() {
		Normalize(q)
	}
}
