// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package bus_test

import (
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/a2abus/a2abus/bus"
)

// item is one keyed item of a RunOrdered test.
type item struct{ key, name string }

// source yields items in order, then reports the end; it counts the items
// taken and not yet handled.
type source struct {
	mu       sync.Mutex
	items    []item
	taken    int
	unhanded atomic.Int32
	maxAhead atomic.Int32
}

func (s *source) next() (item, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.taken == len(s.items) {
		return item{}, false
	}
	it := s.items[s.taken]
	s.taken++
	if n := s.unhanded.Add(1); n > s.maxAhead.Load() {
		s.maxAhead.Store(n)
	}
	return it, true
}

func keyOf(it item) string { return it.key }

// run runs RunOrdered on n goroutines over items with handle, bounded by a timeout.
func run(t *testing.T, n int, items []item, handle func(item)) *source {
	t.Helper()
	s := &source{items: items}
	done := make(chan struct{})
	go func() {
		defer close(done)
		bus.RunOrdered(n, s.next, keyOf, func(it item) {
			handle(it)
			s.unhanded.Add(-1)
		})
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("RunOrdered did not return")
	}
	return s
}

func TestRunOrderedKeepsEachKeysOrderAndRunsKeysSideBySide(t *testing.T) {
	var items []item
	for i := range 6 {
		for _, k := range []string{"a", "b", "c", "d"} {
			items = append(items, item{k, fmt.Sprint(i)})
		}
	}
	var (
		mu               sync.Mutex
		running          = map[string]bool{}
		order            = map[string][]string{}
		now, most, total int
	)
	s := run(t, 3, items, func(it item) {
		mu.Lock()
		if running[it.key] {
			t.Errorf("two items of %s handled at once", it.key)
		}
		running[it.key] = true
		order[it.key] = append(order[it.key], it.name)
		now++
		most = max(most, now)
		mu.Unlock()
		time.Sleep(time.Millisecond)
		mu.Lock()
		running[it.key] = false
		now--
		total++
		mu.Unlock()
	})
	for _, k := range []string{"a", "b", "c", "d"} {
		if got := strings.Join(order[k], ","); got != "0,1,2,3,4,5" {
			t.Errorf("key %s handled in order %s, want 0,1,2,3,4,5", k, got)
		}
	}
	if total != len(items) {
		t.Errorf("%d items handled, want %d", total, len(items))
	}
	if most < 2 || most > 3 {
		t.Errorf("at most %d handled at once, want 2 or 3 (n = 3)", most)
	}
	if a := s.maxAhead.Load(); a > 3 {
		t.Errorf("%d items taken and not handled at once, want at most 3", a)
	}
}

func TestRunOrderedSlowKeyHoldsUpOnlyItsOwnItems(t *testing.T) {
	// a1 waits until every item of b and c is handled; a2 waits behind a1
	// without a goroutine of its own, so b and c still get through.
	items := []item{{"a", "1"}, {"a", "2"}, {"b", "1"}, {"b", "2"}, {"b", "3"}, {"c", "1"}}
	release := make(chan struct{})
	var others atomic.Int32
	var order []string
	var mu sync.Mutex
	run(t, 3, items, func(it item) {
		if it.key == "a" && it.name == "1" {
			select {
			case <-release:
			case <-time.After(5 * time.Second):
				t.Error("a1 was never released: the other keys were held up")
			}
		}
		mu.Lock()
		order = append(order, it.key+it.name)
		mu.Unlock()
		if it.key != "a" && others.Add(1) == 4 {
			close(release)
		}
	})
	if got := strings.Join(order, ","); !strings.HasSuffix(got, "a1,a2") {
		t.Errorf("handled %s; want b and c first, then a1 and a2", got)
	}
}

func TestRunOrderedEndsWithNothingToDo(t *testing.T) {
	handled := 0
	run(t, 4, nil, func(item) { handled++ })
	if handled != 0 {
		t.Errorf("%d items handled, want none", handled)
	}
}
