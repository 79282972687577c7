package jsonl

import (
	"bytes"
	"encoding/json"
	"fmt"
	"testing"
)

// BenchmarkScan reads 10,000 sample-sized lines (about 400 bytes each),
// parsing each: the cost of reading a run's samples.jsonl.
func BenchmarkScan(b *testing.B) {
	var buf bytes.Buffer
	for i := range 10_000 {
		fmt.Fprintf(&buf, `{"task_id":"t%05d","sample":%d,"sql":"SELECT count(*) FROM orders WHERE status = 'shipped'","outcome":"correct","pad":"%0300d"}`+"\n", i, i%4, 0)
	}
	data := buf.Bytes()
	for _, parse := range []bool{false, true} {
		b.Run(fmt.Sprintf("parse=%v", parse), func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				n := 0
				_, err := Scan(bytes.NewReader(data), "bench", TornTail, func(_ int, line []byte) error {
					n++
					if !parse {
						return nil
					}
					var v map[string]any
					return json.Unmarshal(line, &v)
				})
				if err != nil || n != 10_000 {
					b.Fatal(n, err)
				}
			}
		})
	}
}
