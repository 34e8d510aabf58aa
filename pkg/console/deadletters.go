// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package console

import (
	"context"
	"net/http"
	"time"

	"github.com/a2abus/a2abus/internal/redact"
)

// DeadLetter is one message of the dead-letter queue.
type DeadLetter struct {
	// Reason is why it was dead-lettered: the bus's reason header
	// (rejected, max-attempts) or the broker's (expired, rejected, maxlen).
	Reason string
	// Queue is the queue it came from; Agent the agent of that queue.
	Queue, Agent string
	// Kind is the protocol's message kind (task.request, task.result, …).
	Kind string
	// TaskID is the task it belongs to (the correlation id).
	TaskID    string
	MessageID string
	// RoutingKey is the key it was first published with.
	RoutingKey string
	Attempt    string
	Timestamp  time.Time
	// Body is the start of its body, redacted.
	Body string
}

// DeadLetterReader reads the dead-letter queue without taking anything off it.
type DeadLetterReader interface {
	// Peek returns up to n dead letters, oldest first, leaving them in the queue.
	Peek(ctx context.Context, n int) ([]DeadLetter, error)
	// Count is how many messages the dead-letter queue holds.
	Count(ctx context.Context) (int, error)
}

type deadLettersData struct {
	Available bool
	Count     int
	Letters   []DeadLetter
	Err       string
	Max       int
	Actions   bool
	Done      string
}

// deadLettersPage lists the messages of the dead-letter queue (at most
// MaxDeadLetters), read without taking them off it.
func (c *Console) deadLettersPage(w http.ResponseWriter, r *http.Request) {
	_, actor := c.opts.DeadLetters.(DeadLetterActor)
	d := deadLettersData{Available: c.opts.DeadLetters != nil, Max: c.opts.MaxDeadLetters, Actions: c.opts.Actions && actor, Done: r.URL.Query().Get("done")}
	if d.Available {
		ctx, cancel := context.WithTimeout(r.Context(), healthCheckTimeout*2)
		defer cancel()
		var err error
		if d.Count, err = c.opts.DeadLetters.Count(ctx); err == nil {
			d.Letters, err = c.opts.DeadLetters.Peek(ctx, c.opts.MaxDeadLetters)
		}
		if err != nil {
			d.Err = redact.String(err.Error())
		}
	}
	c.render(w, "deadletters", "Dead letters", d)
}
