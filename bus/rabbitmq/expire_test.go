// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package rabbitmq

import (
	"context"
	"errors"
	"testing"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"

	"github.com/a2abus/a2abus/bus"
)

// TestPublishExpires: the publish timeout's pooled timer ends a publish
// that is waiting for a connection (the link between two connections) with
// context.DeadlineExceeded, never sent, as the context it replaced did; and
// one already expired before anything is tried.
func TestPublishExpires(t *testing.T) {
	gap := &link{role: "publish", cur: &session{next: make(chan struct{})}, done: make(chan struct{})}
	p := &publisher{link: gap, slots: make([]slot, 1)}

	timer := startTimer(10 * time.Millisecond)
	defer stopTimer(timer)
	err := p.publish(context.Background(), nil, timer.C, "", "k", amqp.Publishing{}, false)
	if !errors.Is(err, context.DeadlineExceeded) || !errors.Is(err, bus.ErrNotSent) {
		t.Fatalf("publish waiting for a connection = %v, want deadline exceeded, not sent", err)
	}

	fired := make(chan time.Time, 1)
	fired <- time.Now()
	err = p.publish(context.Background(), nil, fired, "", "k", amqp.Publishing{}, false)
	if !errors.Is(err, context.DeadlineExceeded) || !errors.Is(err, bus.ErrNotSent) {
		t.Fatalf("publish after its timeout = %v, want deadline exceeded, not sent", err)
	}
}
