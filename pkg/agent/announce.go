// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package agent

import (
	"context"
	"errors"
	"time"

	"go.uber.org/zap"

	"github.com/a2abus/a2abus/bus"
	"github.com/a2abus/a2abus/internal/component"
	"github.com/a2abus/a2abus/pkg/a2a"
)

// DefaultAnnounceInterval is how often a running agent announces its card.
const DefaultAnnounceInterval = 2 * time.Minute

// announceTimeout bounds one announcement publish.
const announceTimeout = 5 * time.Second

// announce publishes the agent's card on discovery.announce; deregistering
// marks the instance as stopping. Nobody listening (no directory running) is
// not an error: announcements are not kept.
func (a *Agent) announce(ctx context.Context, deregistering bool) {
	a.amu.Lock()
	defer a.amu.Unlock()
	if !deregistering && (a.held || a.deregistered) {
		return
	}
	a.deregistered = a.deregistered || deregistering
	card := a.Card()
	env, err := a.opts.Codec.Encode(&a2a.Announcement{Card: &card, InstanceID: a.opts.InstanceID, Time: a.opts.Now(), Deregistering: deregistering, InputSchemas: a.InputSchemas()}, a2a.Trace{})
	if err != nil {
		a.log.Warn("announcement not encoded", zap.Error(err))
		return
	}
	a.signAnnouncement(&env)
	msg := bus.Message{Envelope: env, RoutingKey: a2a.RoutingKeyAnnounce}
	msg.Transient = true // a lost announcement is repeated at the next interval
	ctx, cancel := context.WithTimeout(ctx, announceTimeout)
	defer cancel()
	switch err := a.opts.Bus.Publish(ctx, msg); {
	case err == nil, errors.Is(err, bus.ErrUnroutable):
	default:
		a.log.Warn("announcement not published", zap.Bool("deregistering", deregistering), zap.Error(err))
	}
}

// announceLoop announces at start and every AnnounceInterval until ctx ends.
func (a *Agent) announceLoop(ctx context.Context) {
	a.announce(ctx, false)
	component.Every(ctx.Done(), a.opts.AnnounceInterval, func() { a.announce(ctx, false) })
}

// HoldAnnouncements stops (hold true) or resumes (false) the agent's
// announcements: the periodic ones, the answers to directories' discovery
// queries and Announce; the deregistration on stop is sent regardless. A
// bridge holds them while what it bridges cannot be reached, so that
// directories see the agent's lastSeen stop and, past their stale_after,
// the agent go offline, while its queued tasks still wait for it.
func (a *Agent) HoldAnnouncements(hold bool) {
	a.amu.Lock()
	defer a.amu.Unlock()
	a.held = hold
}

// Announce publishes the agent's card now, unless announcements are held or
// the agent is not running (not started yet, or stopping: a card announced
// after the deregistration would list the agent again). A bridge announces
// when it has checked that what it bridges is there.
func (a *Agent) Announce(ctx context.Context) {
	if !a.life.Started() {
		return
	}
	a.announce(ctx, false) // nothing once the deregistration is out
}
