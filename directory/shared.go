// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package directory

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/a2abus/a2abus/memory"
)

// SharedStore is the part of working memory a directory shares its listing
// through (memory.Memory implements it).
type SharedStore interface {
	Get(ctx context.Context, key string) ([]byte, error)
	Set(ctx context.Context, key string, value []byte, ttl time.Duration) error
}

// sharedTimeout bounds one read or write of the shared listing.
const sharedTimeout = 5 * time.Second

// sharedState is what the directory last wrote to the shared listing.
type sharedState struct {
	mu    sync.Mutex
	shape [sha256.Size]byte // the listing without its times
	at    time.Time         // when it was written
}

// sharedRefresh is how often a listing whose only changes are times (an
// agent announcing itself again) is written: every directory that lists
// hears every announcement, so writing each would cost one write of the
// whole listing per announcement and lister. A quarter of StaleAfter keeps
// the instances' last seen fresh enough that a restored one is not swept
// as stale while it runs.
func (d *Directory) sharedRefresh() time.Duration { return d.opts.StaleAfter / 4 }

// sharedSink writes the listing to Options.Shared under SharedKey, compact,
// expiring ForgetAfter after the write (what no directory wrote for that
// long is forgotten anyway). A listing that differs from the last one
// written only in its times is written at most once per sharedRefresh.
func (d *Directory) sharedSink(agents []storedAgent) error {
	data, err := encodeKnownAgents(agents, "")
	if err != nil {
		return fmt.Errorf("directory: save the shared listing %q: encode: %w", d.opts.SharedKey, err)
	}
	shape, err := listingShape(agents)
	if err != nil {
		return fmt.Errorf("directory: save the shared listing %q: encode: %w", d.opts.SharedKey, err)
	}
	now := d.opts.Now()
	d.shared.mu.Lock()
	defer d.shared.mu.Unlock()
	if shape == d.shared.shape && !d.shared.at.IsZero() && now.Sub(d.shared.at) < d.sharedRefresh() {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), sharedTimeout)
	defer cancel()
	if err := d.opts.Shared.Set(ctx, d.opts.SharedKey, data, d.opts.ForgetAfter); err != nil {
		return fmt.Errorf("directory: save the shared listing %q: %w", d.opts.SharedKey, err)
	}
	d.shared.shape, d.shared.at = shape, now
	return nil
}

// listingShape is a digest of agents without their times: what changes
// when an agent, an instance, a card or a schema comes or goes.
func listingShape(agents []storedAgent) ([sha256.Size]byte, error) {
	timeless := make([]storedAgent, len(agents))
	for i, a := range agents {
		a.LastSeen = time.Time{}
		a.Instances = slices.Clone(a.Instances)
		for j := range a.Instances {
			a.Instances[j].LastSeen = time.Time{}
		}
		timeless[i] = a
	}
	data, err := json.Marshal(timeless)
	return sha256.Sum256(data), err
}

// restoreShared reads the shared listing and adds what it knows that this
// directory does not know better (restore's rules, merge's precedence). It
// is best effort: a listing that cannot be read or does not parse is logged
// and the directory starts from what it has; the first discovery round and
// the announcements fill it in, and its next write replaces a bad listing.
func (d *Directory) restoreShared(ctx context.Context) {
	if d.opts.Shared == nil {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, sharedTimeout)
	defer cancel()
	data, err := d.opts.Shared.Get(ctx, d.opts.SharedKey)
	if errors.Is(err, memory.ErrNotFound) {
		return // the deployment's first directory
	}
	if err == nil && int64(len(data)) > d.opts.knownAgentsFileBytes() {
		err = fmt.Errorf("%d bytes, more than the bound of %d", len(data), d.opts.knownAgentsFileBytes())
	}
	var stored []storedAgent
	if err == nil {
		stored, err = parseKnownAgents(d.opts.SharedKey, data)
	}
	if err != nil {
		if ctx.Err() == nil || errors.Is(ctx.Err(), context.DeadlineExceeded) { // not stopping
			d.log.Warn("shared agent listing not restored: starting from the well-known agents and what is announced",
				zap.String("key", d.opts.SharedKey), zap.Error(err))
		}
		return
	}
	now := d.opts.Now()
	restored := d.reg.merge(stored, now)
	removed := d.reg.trim()
	_, forgotten := d.reg.sweep(now)
	d.log.Info("shared agent listing restored", zap.String("key", d.opts.SharedKey), zap.Int("agents", restored),
		zap.Int("dropped", len(removed)+len(forgotten)))
	if restored > 0 {
		d.changed()
	}
}

// Warm is closed once the directory has restored the shared listing and
// its first discovery round has ended (DiscoveryRound after its start-up
// query; at once after the restore for a QueryOnMiss directory), or when
// Run returned: from then on List shows what the running agents answered.
// It stays open until Run runs.
func (d *Directory) Warm() <-chan struct{} { return d.warm }

func (d *Directory) warmUp() { d.warmOnce.Do(func() { close(d.warm) }) }
