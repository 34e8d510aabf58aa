// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package bus

import "sync"

// RunOrdered is the dispatcher of Ordered consumers: it takes items from
// next and runs handle on them on up to n goroutines, the items of one key
// one at a time and in the order next returned them, while other keys go
// on — an item whose key is being handled waits behind it without holding
// a goroutine, so a slow key delays only its own items. At most n items are
// taken from next and not yet handled. next is called by one goroutine at a
// time and reports false at the end; RunOrdered returns once it did and
// every item taken has been handled (handle decides what a stopping
// consumer does with an item: run it, or hand it back).
func RunOrdered[T any](n int, next func() (T, bool), key func(T) string, handle func(T)) {
	n = max(n, 1)
	var (
		receive sync.Mutex // held while taking an item and placing it: keeps next's order
		mu      sync.Mutex
		behind  = map[string][]T{} // the keys being handled, with the items waiting behind them
		ahead   = make(chan struct{}, n)
	)
	// take waits for the next item to run; false at the end.
	take := func() (item T, k string, ok bool) {
		for {
			ahead <- struct{}{}
			receive.Lock()
			item, ok = next()
			if !ok {
				receive.Unlock()
				<-ahead
				return item, "", false
			}
			k = key(item)
			mu.Lock()
			queue, busy := behind[k]
			if busy {
				behind[k] = append(queue, item)
			} else {
				behind[k] = nil
			}
			mu.Unlock()
			receive.Unlock()
			if !busy {
				return item, k, true
			}
		}
	}
	// following returns the item waiting behind key k, or ends k's turn.
	following := func(k string) (item T, ok bool) {
		mu.Lock()
		defer mu.Unlock()
		queue := behind[k]
		if len(queue) == 0 {
			delete(behind, k)
			return item, false
		}
		item, behind[k] = queue[0], queue[1:]
		return item, true
	}
	StartWorkers(n, func(w *Workers) {
		for {
			item, k, ok := take()
			if !ok {
				return
			}
			w.Took()
			for ok {
				handle(item)
				<-ahead
				item, ok = following(k)
			}
			w.Idle()
		}
	}).Wait()
}
