// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package main

import (
	"context"
	"time"

	"github.com/a2abus/a2abus/bus"
	"github.com/a2abus/a2abus/bus/rabbitmq"
)

// `invoke --wait` first looks at the task queue after queueFirstCheck (a
// task an agent takes at once says nothing), then every queueCheckInterval
// until the agent's first status update arrives.
const (
	queueFirstCheck    = 300 * time.Millisecond
	queueCheckInterval = 2 * time.Second
)

// queueInspector reads a queue's ready messages and consumers
// (*rabbitmq.Bus; the embedded bus has no queue another process could serve).
type queueInspector interface {
	Inspect(ctx context.Context, queue string) (rabbitmq.QueueStats, error)
}

// watchQueue shows on p, until ctx ends or the agent's first status update
// arrives, how the task queue of target looks: how many tasks are ahead and
// whether any agent consumes it. A failed look is skipped: the note is advice.
//
// With a wait bound (waitUntil not zero: the time the task may be taken by),
// the note says how long it may still wait before it ends EXPIRED_IN_QUEUE.
func watchQueue(ctx context.Context, qi queueInspector, target string, waitUntil time.Time, p *progress) {
	spec, err := bus.TaskQueue(target)
	if err != nil {
		return
	}
	t := time.NewTimer(queueFirstCheck)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if p.started() {
			return
		}
		if st, err := qi.Inspect(ctx, spec.Name); err == nil {
			note := queueNote(spec.Name, st.Messages, st.Consumers)
			if note != "" && !waitUntil.IsZero() {
				note += "; " + waitLeft(time.Until(waitUntil))
			}
			p.queued(note)
		}
		t.Reset(queueCheckInterval)
	}
}
