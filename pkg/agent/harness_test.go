// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package agent

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/a2abus/a2abus/bus"
	"github.com/a2abus/a2abus/bus/inproc"
	"github.com/a2abus/a2abus/internal/testenv"
	"github.com/a2abus/a2abus/pkg/a2a"
)

const testCaller = "Caller"

// harness is an embedded bus with a caller that sends requests to one agent
// and collects every reply on its response queue.
type harness struct {
	*replies
	broker *inproc.Broker
}

func newHarness(t *testing.T) *harness {
	t.Helper()
	broker := inproc.NewBroker(inproc.Options{})
	t.Cleanup(func() { _ = broker.Close() })
	return &harness{replies: collectReplies(t, broker.Connect(), testCaller), broker: broker}
}

// replies publishes task requests on b as one caller and collects every
// reply that reaches that caller's response queue.
type replies struct {
	t     *testing.T
	b     bus.Bus
	codec a2a.Codec

	mu  sync.Mutex
	got []a2a.Payload
}

// collectReplies declares caller's response queue on b and collects what reaches it.
func collectReplies(t *testing.T, b bus.Bus, caller string) *replies {
	t.Helper()
	r := &replies{t: t, b: b}
	spec, err := bus.ResponseQueue(caller)
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Declare(context.Background(), spec); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = b.Consume(ctx, spec.Name, bus.ConsumeOptions{}, func(_ context.Context, d *bus.Delivery) error {
			p, err := r.codec.Decode(d.Envelope)
			if err != nil {
				t.Errorf("undecodable reply: %v", err)
				return nil
			}
			r.mu.Lock()
			r.got = append(r.got, p)
			r.mu.Unlock()
			return nil
		})
	}()
	t.Cleanup(func() { cancel(); <-done })
	return r
}

// all returns the replies collected so far.
func (r *replies) all() []a2a.Payload {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.got)
}

// publish declares req's target's task queue and publishes req.
func (r *replies) publish(req *a2a.TaskRequest) {
	r.t.Helper()
	env, err := r.codec.Encode(req, a2a.Trace{})
	if err != nil {
		r.t.Fatal(err)
	}
	if err := r.b.Declare(context.Background(), mustTaskQueue(req.Target)); err != nil {
		r.t.Fatal(err)
	}
	key, _ := a2a.TaskRoutingKey(req.Target)
	if err := r.b.Publish(context.Background(), bus.Message{Envelope: env, RoutingKey: key}); err != nil {
		r.t.Fatal(err)
	}
}

func (h *harness) agent(opts Options, skills map[string]Handler) *Agent {
	h.t.Helper()
	if opts.Card.Name == "" {
		opts.Card.Name = "Worker"
	}
	opts.Bus = h.broker.Connect()
	if opts.StopTimeout == 0 {
		opts.StopTimeout = 2 * time.Second
	}
	a, err := New(opts)
	if err != nil {
		h.t.Fatal(err)
	}
	for s, fn := range skills {
		if err := a.Handle(s, fn); err != nil {
			h.t.Fatal(err)
		}
	}
	return a
}

// start runs a until the test ends and returns a channel with Run's error.
func (h *harness) start(a *Agent) <-chan error {
	h.t.Helper()
	errc := make(chan error, 1)
	go func() { errc <- a.Run(context.Background()) }()
	h.t.Cleanup(func() { _ = a.Close() })
	// The task queue exists once Run declared it.
	testenv.Eventually(h.t, "agent queues declared", func() bool {
		return h.b.Declare(context.Background(), mustTaskQueue(a.Name())) == nil
	})
	return errc
}

func mustTaskQueue(name string) bus.QueueSpec {
	s, err := bus.TaskQueue(name)
	if err != nil {
		panic(err)
	}
	return s
}

func (h *harness) send(target, skill, text string, mod ...func(*a2a.TaskRequest)) *a2a.TaskRequest {
	h.t.Helper()
	req := &a2a.TaskRequest{
		TaskID: uuid.NewString(), SessionID: "s1", Caller: testCaller, Target: target, Skill: skill,
		Message: a2a.NewTextMessage(a2a.MessageRoleUser, text), Deadline: time.Now().Add(20 * time.Second), Stream: true,
	}
	for _, m := range mod {
		m(req)
	}
	h.publish(req)
	return req
}

// final waits for the result or error of task id and returns it.
func (r *replies) final(id string) a2a.Payload {
	r.t.Helper()
	var out a2a.Payload
	testenv.Eventually(r.t, "final reply of "+id, func() bool {
		for _, p := range r.all() {
			switch r := p.(type) {
			case *a2a.TaskResult:
				if r.TaskID == id {
					out = r
				}
			case *a2a.TaskError:
				if r.TaskID == id {
					out = r
				}
			}
		}
		return out != nil
	})
	return out
}

func (h *harness) statuses(id string) []*a2a.TaskStatus {
	var out []*a2a.TaskStatus
	for _, p := range h.all() {
		if s, ok := p.(*a2a.TaskStatus); ok && s.TaskID == id {
			out = append(out, s)
		}
	}
	return out
}

func (h *harness) errorCode(id string) a2a.ErrorCode {
	h.t.Helper()
	switch r := h.final(id).(type) {
	case *a2a.TaskError:
		return r.Code
	case *a2a.TaskResult:
		h.t.Fatalf("task %s completed (%s), want an error", id, a2a.MessageText(r.Message))
	}
	return ""
}
