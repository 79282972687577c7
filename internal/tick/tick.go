// Package tick runs a function at a fixed interval until stopped: the
// progress lines long commands print (eval's samples, variants'
// databases) share it, so each only says what its line holds.
package tick

import (
	"sync"
	"time"
)

// Ticker calls its function every interval until Stop.
type Ticker struct {
	stop chan struct{}
	once sync.Once
	wg   sync.WaitGroup
}

// Every calls fn every d on its own goroutine until Stop. fn is never
// called after Stop returns.
func Every(d time.Duration, fn func()) *Ticker {
	t := &Ticker{stop: make(chan struct{})}
	t.wg.Add(1)
	go func() {
		defer t.wg.Done()
		tk := time.NewTicker(d)
		defer tk.Stop()
		for {
			select {
			case <-t.stop:
				return
			case <-tk.C:
				fn()
			}
		}
	}()
	return t
}

// Stop ends the calls and waits for one in progress; a second Stop, or
// Stop on a nil Ticker, does nothing.
func (t *Ticker) Stop() {
	if t == nil {
		return
	}
	t.once.Do(func() { close(t.stop) })
	t.wg.Wait()
}
