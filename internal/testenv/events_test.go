// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package testenv

import (
	"slices"
	"sync"
	"testing"
)

func TestEvents(t *testing.T) {
	var ev Events
	if ev.List() != nil || ev.Index("a") != -1 {
		t.Fatalf("a new Events: %q, index %d", ev.List(), ev.Index("a"))
	}
	ev.Add("a")
	ev.Add("b")
	ev.Add("a")
	got := ev.List()
	if !slices.Equal(got, []string{"a", "b", "a"}) || ev.Index("a") != 0 || ev.Index("b") != 1 || ev.Index("c") != -1 {
		t.Fatalf("List = %q, Index(a) %d, Index(b) %d", got, ev.Index("a"), ev.Index("b"))
	}
	got[0] = "changed"
	if ev.List()[0] != "a" {
		t.Fatal("List shares its slice with the recorder")
	}
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() { ev.Add("x") })
	}
	wg.Wait()
	if n := len(ev.List()); n != 11 {
		t.Fatalf("%d events after 8 more, want 11", n)
	}
}
