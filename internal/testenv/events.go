// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package testenv

import (
	"slices"
	"sync"
)

// Events records what happened, in order (parts stopped, closed, woken),
// from any goroutine. The zero value is ready to use.
type Events struct {
	mu   sync.Mutex
	list []string
}

// Add records event after every event recorded so far.
func (e *Events) Add(event string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.list = append(e.list, event)
}

// List returns a copy of the events recorded so far, in order.
func (e *Events) List() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return slices.Clone(e.list)
}

// Index returns the place of the first event equal to event, or -1.
func (e *Events) Index(event string) int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return slices.Index(e.list, event)
}
