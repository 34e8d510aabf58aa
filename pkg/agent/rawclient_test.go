// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package agent

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/a2abus/a2abus/bus"
	"github.com/a2abus/a2abus/internal/testenv"
	"github.com/a2abus/a2abus/internal/testworld"
	"github.com/a2abus/a2abus/pkg/a2a"
)

// rawClient publishes task requests itself, as a raw publisher would (any
// deadline, any caller name), on a test world, and collects the replies on
// the response queue of its own name.
type rawClient struct {
	*replies
	name string
}

// newRawClient declares name's response queue on w and collects what reaches it.
func newRawClient(t *testing.T, w *testworld.World, name string) *rawClient {
	t.Helper()
	return &rawClient{replies: collectReplies(t, w.Connect(t), name), name: name}
}

// send publishes a request for skill of target, from caller (a name whose
// response queue may not exist), due in an hour unless mod says otherwise.
func (c *rawClient) send(target, skill, caller string, mod ...func(*a2a.TaskRequest)) *a2a.TaskRequest {
	c.t.Helper()
	req := &a2a.TaskRequest{
		TaskID: uuid.NewString(), SessionID: "raw", Caller: caller, Target: target, Skill: skill,
		Message: a2a.NewTextMessage(a2a.MessageRoleUser, "x"), Deadline: time.Now().Add(time.Hour),
	}
	for _, m := range mod {
		m(req)
	}
	c.publish(req)
	return req
}

// waitDeadLettered waits until task id is in w's dead-letter queue.
func waitDeadLettered(t *testing.T, w *testworld.World, id string) {
	t.Helper()
	b := w.Connect(t)
	var found atomic.Bool
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = b.Consume(ctx, a2a.DeadLetterQueue(w.Exchange), bus.ConsumeOptions{}, func(_ context.Context, d *bus.Delivery) error {
			if d.CorrelationID == id {
				found.Store(true)
			}
			return nil
		})
	}()
	defer func() { cancel(); <-done }()
	testenv.Eventually(t, "task "+id+" in the dead-letter queue", found.Load)
}
