// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package ops

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/a2abus/a2abus/memory"
)

// Errors of Ready.
var (
	// ErrDraining: the process is stopping.
	ErrDraining = errors.New("ops: draining")
	// ErrBrokerDown: the broker connections are being re-dialled.
	ErrBrokerDown = errors.New("ops: broker connection lost, reconnecting")
	// ErrMemoryDown: working memory does not answer.
	ErrMemoryDown = errors.New("ops: working memory does not answer")
	// ErrNotRunning: an expected consumer (agent or caller) is not running.
	ErrNotRunning = errors.New("ops: consumer not running")
)

// pingTimeout bounds the working-memory ping of one readiness check.
const pingTimeout = 2 * time.Second

// readiness tracks what /readyz answers.
type readiness struct {
	draining atomic.Bool

	mu     sync.Mutex
	broker BrokerState
	memory memory.Memory
	parts  map[string]*part
	checks map[string]func() error
}

type part struct{ expected, running int }

func (r *readiness) init() { r.parts, r.checks = map[string]*part{}, map[string]func() error{} }

func (r *readiness) watch(b BrokerState, m memory.Memory) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.broker, r.memory = b, m
}

func (r *readiness) get(name string) *part {
	p := r.parts[name]
	if p == nil {
		p = &part{}
		r.parts[name] = p
	}
	return p
}

func (r *readiness) expect(name string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.get(name).expected++
}

// running records a part starting or stopping; one that stops is expected
// no more (it stopped on purpose, or its process is going down).
func (r *readiness) running(name string, up bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	p := r.get(name)
	if up {
		p.running++
		return
	}
	p.running = max(p.running-1, 0)
	p.expected = max(p.expected-1, 0)
	if p.running == 0 && p.expected == 0 {
		delete(r.parts, name)
	}
}

func (r *readiness) check(ctx context.Context) error {
	if r.draining.Load() {
		return ErrDraining
	}
	r.mu.Lock()
	b, m := r.broker, r.memory
	checks := make([]func() error, 0, len(r.checks))
	names := slices.Sorted(maps.Keys(r.checks))
	for _, name := range names {
		checks = append(checks, r.checks[name])
	}
	var idle []string
	for name, p := range r.parts {
		if p.running < p.expected {
			idle = append(idle, name)
		}
	}
	r.mu.Unlock()
	var errs []error
	if b != nil && !b.Connected() {
		errs = append(errs, ErrBrokerDown)
	}
	if m != nil {
		ctx, cancel := context.WithTimeout(ctx, pingTimeout)
		err := m.Ping(ctx)
		cancel()
		if err != nil {
			errs = append(errs, fmt.Errorf("%w: %w", ErrMemoryDown, err))
		}
	}
	slices.Sort(idle)
	for _, name := range idle {
		errs = append(errs, fmt.Errorf("%w: %s", ErrNotRunning, name))
	}
	for i, f := range checks {
		if err := f(); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", names[i], err))
		}
	}
	return errors.Join(errs...)
}
