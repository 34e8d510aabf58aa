// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package bustest

import (
	"context"
	"testing"
	"time"

	"github.com/a2abus/a2abus/bus"
	"github.com/a2abus/a2abus/internal/testenv"
)

// testUnroutable: a routing key no queue is bound to is an error, never silence.
func testUnroutable(t *testing.T, env Env) {
	b := connect(t, env)
	err := b.Publish(t.Context(), message("agent.task.Nobody"+unique()))
	expectErr(t, "publish to an unbound key", err, bus.ErrUnroutable)
}

// testDeclareIdempotent: declaring one spec again, from any connection, is
// fine and binds nothing twice.
func testDeclareIdempotent(t *testing.T, env Env) {
	b1, b2 := connect(t, env), connect(t, env)
	spec := taskQueue(t, b1)
	declare(t, b1, spec)
	declare(t, b2, spec)
	m := message(spec.Bindings[0])
	publish(t, b2, m)
	r := newRecorder()
	consume(t, b1, spec.Name, bus.ConsumeOptions{}, r.handle)
	marker := message(spec.Bindings[0])
	publish(t, b1, marker)
	testenv.Eventually(t, "messages delivered", func() bool { return r.has(m.MessageID, marker.MessageID) })
	if c := r.count(m.MessageID); c != 1 {
		t.Errorf("message delivered %d times after redeclaring, want once", c)
	}
}

// testDeclareMismatch: redeclaring a queue as another kind is a topology
// mismatch, and the connection stays usable.
func testDeclareMismatch(t *testing.T, env Env) {
	b := connect(t, env)
	spec := taskQueue(t, b)
	other := spec
	other.Kind = bus.KindResponse
	err := b.Declare(t.Context(), other)
	expectErr(t, "redeclare a task queue as a response queue", err, bus.ErrTopologyMismatch)

	declare(t, b, spec)
	m := message(spec.Bindings[0])
	publish(t, b, m)
	r := newRecorder()
	consume(t, b, spec.Name, bus.ConsumeOptions{}, r.handle)
	testenv.Eventually(t, "delivery after a mismatch", func() bool { return r.has(m.MessageID) })
}

// testDeclareExpiryMismatch: a response queue that expires (a transient
// caller's) redeclared with another expiry or none is a topology mismatch,
// the same spec again is fine and carries messages, and only response
// queues may expire.
func testDeclareExpiryMismatch(t *testing.T, env Env) {
	b := connect(t, env)
	spec, err := bus.ResponseQueue("Conf" + unique())
	if err != nil {
		t.Fatalf("response queue spec: %v", err)
	}
	spec.Expires = time.Hour
	declare(t, b, spec)
	for _, expires := range []time.Duration{0, 2 * time.Hour} {
		other := spec
		other.Expires = expires
		err := b.Declare(t.Context(), other)
		expectErr(t, "redeclare a transient response queue with expiry "+expires.String(), err, bus.ErrTopologyMismatch)
	}
	declare(t, b, spec)
	m := message(spec.Bindings[0])
	publish(t, b, m)
	r := newRecorder()
	consume(t, b, spec.Name, bus.ConsumeOptions{}, r.handle)
	testenv.Eventually(t, "delivery on a transient queue", func() bool { return r.has(m.MessageID) })

	task, err := bus.TaskQueue("Conf" + unique())
	if err != nil {
		t.Fatalf("task queue spec: %v", err)
	}
	task.Expires = time.Hour
	expectErr(t, "declare an expiring task queue", b.Declare(t.Context(), task), bus.ErrInvalidMessage)
}

// testDeclareInvalid: a spec failing Validate is refused.
func testDeclareInvalid(t *testing.T, env Env) {
	b := connect(t, env)
	for _, spec := range []bus.QueueSpec{
		{Kind: bus.KindTask, Bindings: []string{"k"}},
		{Name: "q" + unique()},
		{Name: "q" + unique(), Kind: bus.KindDead + 1},
	} {
		err := b.Declare(t.Context(), spec)
		expectErr(t, "declare invalid spec "+spec.Name+"/"+spec.Kind.String(), err, bus.ErrInvalidMessage)
	}
}

// testConsumeNoQueue: consuming a queue nobody declared fails at once.
func testConsumeNoQueue(t *testing.T, env Env) {
	b := connect(t, env)
	done := make(chan error, 1)
	go func() {
		done <- b.Consume(t.Context(), "agent.task.Nobody"+unique(), bus.ConsumeOptions{}, func(context.Context, *bus.Delivery) error {
			return nil
		})
	}()
	expectErr(t, "consume an undeclared queue", wait(t, "Consume of an undeclared queue returns", done), bus.ErrNoQueue)
}

// testInstanceQueue: an instance queue lives only as long as the connection
// that declared it.
func testInstanceQueue(t *testing.T, env Env) {
	owner, other := connect(t, env), connect(t, env)
	spec := instanceQueue(t, owner, "agent.cancel.Conf"+unique())
	publish(t, other, message(spec.Bindings[0]))
	if err := owner.Close(); err != nil {
		t.Fatalf("close owner: %v", err)
	}
	testenv.Eventually(t, "instance queue deleted with its connection", func() bool {
		return isUnroutable(other.Publish(t.Context(), message(spec.Bindings[0])))
	})
}

// testPublishDoneContext: Publish with a context already done fails with the ctx error.
func testPublishDoneContext(t *testing.T, env Env) {
	b := connect(t, env)
	spec := taskQueue(t, b)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	expectErr(t, "publish with a cancelled ctx", b.Publish(ctx, message(spec.Bindings[0])), context.Canceled)
}
