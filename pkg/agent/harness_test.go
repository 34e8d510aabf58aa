package agent

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/a2abus/a2abus/bus"
	"github.com/a2abus/a2abus/bus/inproc"
	"github.com/a2abus/a2abus/pkg/a2a"
)

const testCaller = "Caller"

// harness is an embedded bus with a caller that sends requests to one agent
// and collects every reply on its response queue.
type harness struct {
	t      *testing.T
	broker *inproc.Broker
	b      bus.Bus
	codec  a2a.Codec

	mu      sync.Mutex
	replies []a2a.Payload
}

func newHarness(t *testing.T) *harness {
	t.Helper()
	broker := inproc.NewBroker(inproc.Options{})
	h := &harness{t: t, broker: broker, b: broker.Connect()}
	t.Cleanup(func() { _ = broker.Close() })
	spec, _ := bus.ResponseQueue(testCaller)
	if err := h.b.Declare(context.Background(), spec); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = h.b.Consume(ctx, spec.Name, bus.ConsumeOptions{}, func(_ context.Context, d *bus.Delivery) error {
			p, err := h.codec.Decode(d.Envelope())
			if err != nil {
				t.Errorf("undecodable reply: %v", err)
				return nil
			}
			h.mu.Lock()
			h.replies = append(h.replies, p)
			h.mu.Unlock()
			return nil
		})
	}()
	t.Cleanup(func() { cancel(); <-done })
	return h
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
	h.eventually("agent queues declared", func() bool {
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
		Message: a2a.NewTextMessage(a2a.RoleUser, text), Deadline: time.Now().Add(20 * time.Second), Stream: true,
	}
	for _, m := range mod {
		m(req)
	}
	env, err := h.codec.Encode(req, a2a.Trace{})
	if err != nil {
		h.t.Fatal(err)
	}
	if err := h.b.Declare(context.Background(), mustTaskQueue(target)); err != nil {
		h.t.Fatal(err)
	}
	key, _ := a2a.TaskRoutingKey(target)
	if err := h.b.Publish(context.Background(), bus.FromEnvelope(key, env)); err != nil {
		h.t.Fatal(err)
	}
	return req
}

func (h *harness) eventually(what string, cond func() bool) {
	h.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			h.t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// final waits for the result or error of task id and returns it.
func (h *harness) final(id string) a2a.Payload {
	h.t.Helper()
	var out a2a.Payload
	h.eventually("final reply of "+id, func() bool {
		h.mu.Lock()
		defer h.mu.Unlock()
		for _, p := range h.replies {
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
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []*a2a.TaskStatus
	for _, p := range h.replies {
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
