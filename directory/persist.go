// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package directory

import (
	"context"
	"sync"
	"time"

	"go.uber.org/zap"
)

// persister writes the registry to the known-agents file at most once per
// debounce after a change, and on demand (flush). Without a path it does nothing.
type persister struct {
	path     string
	debounce time.Duration
	snapshot func() []storedAgent
	log      *zap.Logger

	kick    chan struct{} // a change happened (capacity 1)
	writeMu sync.Mutex    // one write at a time
	mu      sync.Mutex
	dirty   bool
}

func newPersister(path string, debounce time.Duration, snapshot func() []storedAgent, log *zap.Logger) *persister {
	return &persister{path: path, debounce: debounce, snapshot: snapshot, log: log, kick: make(chan struct{}, 1)}
}

// changed marks the state as not yet written and wakes run.
func (p *persister) changed() {
	if p.path == "" {
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
	if p.path == "" {
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
				p.log.Warn("known agents not saved; retrying", zap.String("file", p.path), zap.Error(err))
				pending = true
				timer.Reset(p.debounce)
			}
		}
	}
}

// flush writes the state now if it changed since the last write.
func (p *persister) flush() error {
	if p.path == "" {
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
	if err := saveKnownAgents(p.path, p.snapshot()); err != nil {
		p.mu.Lock()
		p.dirty = true
		p.mu.Unlock()
		return err
	}
	return nil
}
