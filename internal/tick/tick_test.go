package tick

import (
	"sync/atomic"
	"testing"
	"time"
)

// The function runs repeatedly, and never again once Stop has returned.
func TestEveryUntilStop(t *testing.T) {
	var n atomic.Int64
	tk := Every(time.Millisecond, func() { n.Add(1) })
	for n.Load() < 3 {
		time.Sleep(time.Millisecond)
	}
	tk.Stop()
	after := n.Load()
	time.Sleep(20 * time.Millisecond)
	if got := n.Load(); got != after {
		t.Fatalf("called %d more times after Stop", got-after)
	}
	tk.Stop() // a second Stop does nothing
	var none *Ticker
	none.Stop()
}
