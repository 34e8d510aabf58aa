// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package directory

import (
	"context"
	"errors"
	"sync"
	"time"

	"go.uber.org/zap"
)

// sink saves the registry to one place: the known-agents file, or the
// shared listing in working memory. Its errors name the place.
type sink func([]storedAgent) error

// persister writes the registry to its sinks at most once per debounce
// after a change, and on demand (flush). Without sinks it does nothing.
type persister struct {
	sinks    []sink
	debounce time.Duration
	snapshot func() []storedAgent
	log      *zap.Logger

	kick    chan struct{} // a change happened (capacity 1)
	writeMu sync.Mutex    // one write at a time
	mu      sync.Mutex
	dirty   bool
}

func newPersister(debounce time.Duration, snapshot func() []storedAgent, log *zap.Logger, sinks ...sink) *persister {
	return &persister{sinks: sinks, debounce: debounce, snapshot: snapshot, log: log, kick: make(chan struct{}, 1)}
}

// changed marks the state as not yet written and wakes run.
func (p *persister) changed() {
	if len(p.sinks) == 0 {
		return
	}
	p.mu.Lock()
	p.dirty = true
	p.mu.Unlock()
	select {
	case p.kick <- struct{}{}:
	default:
	}
}

// run writes changes, each batch debounce after its first change, until ctx
// ends. A failed write is logged and retried after the next debounce.
func (p *persister) run(ctx context.Context) {
	if len(p.sinks) == 0 {
		return
	}
	timer := time.NewTimer(p.debounce)
	timer.Stop()
	defer timer.Stop()
	pending := false
	for {
		select {
		case <-ctx.Done():
			return
		case <-p.kick:
			if !pending {
				pending = true
				timer.Reset(p.debounce)
			}
		case <-timer.C:
			pending = false
			if err := p.flush(); err != nil {
				p.log.Warn("known agents not saved; retrying", zap.Error(err))
				pending = true
				timer.Reset(p.debounce)
			}
		}
	}
}

// flush writes the state to every sink now if it changed since the last
// write; a sink that failed is written again by the next flush (all are).
func (p *persister) flush() error {
	if len(p.sinks) == 0 {
		return nil
	}
	p.writeMu.Lock()
	defer p.writeMu.Unlock()
	p.mu.Lock()
	dirty := p.dirty
	p.dirty = false // a change from here on is written by the next flush
	p.mu.Unlock()
	if !dirty {
		return nil
	}
	agents := p.snapshot()
	var errs []error
	for _, s := range p.sinks {
		if err := s(agents); err != nil {
			errs = append(errs, err)
		}
	}
	if err := errors.Join(errs...); err != nil {
		p.mu.Lock()
		p.dirty = true
		p.mu.Unlock()
		return err
	}
	return nil
}
