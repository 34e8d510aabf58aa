// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/a2abus/a2abus/bus"
	"github.com/a2abus/a2abus/bus/inproc"
	"github.com/a2abus/a2abus/internal/testenv"
	"github.com/a2abus/a2abus/pkg/a2a"
)

func echo(_ context.Context, t *Task) (*Result, error) { return TextResult(t.Text()), nil }

func TestResultStatusesAndAck(t *testing.T) {
	h := newHarness(t)
	a := h.agent(Options{Card: a2a.AgentCard{Name: "Worker", Version: "2.1"}}, map[string]Handler{
		"echo": func(ctx context.Context, task *Task) (*Result, error) {
			if err := task.Progress(ctx, "halfway", 0.5); err != nil {
				return nil, err
			}
			return &Result{Message: a2a.NewTextMessage(a2a.MessageRoleAgent, task.Text()), Confidence: a2a.ConfidenceHigh,
				Artifacts: []*a2a.Artifact{{ID: "a1", Parts: []*a2a.Part{a2a.NewDataPart(map[string]any{"n": 1})}}}}, nil
		},
	})
	h.start(a)
	req := h.send("Worker", "echo", "hello")
	res, ok := h.final(req.TaskID).(*a2a.TaskResult)
	if !ok {
		t.Fatalf("want a result, got %#v", h.final(req.TaskID))
	}
	if a2a.MessageText(res.Message) != "hello" || res.State != a2a.TaskStateCompleted || res.Status != a2a.StatusSuccess ||
		len(res.Artifacts) != 1 || res.Metadata.AgentVersion != "2.1" || res.Confidence != a2a.ConfidenceHigh {
		t.Fatalf("result = %+v", res)
	}
	st := h.statuses(req.TaskID)
	if len(st) != 2 || st[0].State != a2a.TaskStateWorking || st[1].Progress == nil || *st[1].Progress != 0.5 ||
		a2a.MessageText(st[1].Message) != "halfway" {
		t.Fatalf("statuses = %+v", st)
	}
	// The request was acked: a fresh consumer of the task queue finds nothing.
	assertQueueEmpty(t, h, "agent.task.Worker")
}

func assertQueueEmpty(t *testing.T, h *harness, queue string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	got := 0
	c := h.broker.Connect()
	defer c.Close()
	_ = c.Consume(ctx, queue, bus.ConsumeOptions{}, func(_ context.Context, d *bus.Delivery) error { got++; return d.Nack() })
	if got != 0 {
		t.Fatalf("queue %s still holds %d message(s)", queue, got)
	}
}

func TestFailures(t *testing.T) {
	h := newHarness(t)
	a := h.agent(Options{Now: time.Now}, map[string]Handler{
		"echo":  echo,
		"fail":  func(context.Context, *Task) (*Result, error) { return nil, errors.New("disk full") },
		"panic": func(context.Context, *Task) (*Result, error) { panic("kaboom") },
		"typed": func(_ context.Context, t *Task) (*Result, error) {
			var in struct {
				Rate float64 `json:"discount_rate"`
			}
			return nil, t.DecodeInput(&in)
		},
		"empty": func(context.Context, *Task) (*Result, error) { return nil, nil },
	})
	h.start(a)
	cases := []struct {
		skill string
		input string
		code  a2a.ErrorCode
		text  string
	}{
		{"fail", "", a2a.CodeExecutionFailed, "disk full"},
		{"panic", "", a2a.CodeExecutionFailed, "kaboom"},
		{"typed", `{"discount_rate":"high"}`, a2a.CodeInvalidInput, `"discount_rate"`},
		{"typed", "", a2a.CodeInvalidInput, "structured input is required"},
		{"empty", "", a2a.CodeExecutionFailed, "empty result"},
		{"translate", "", a2a.CodeSkillNotSupported, "echo, empty, fail, panic, typed"},
	}
	for _, tc := range cases {
		t.Run(tc.skill+tc.input, func(t *testing.T) {
			req := h.send("Worker", tc.skill, "x", func(r *a2a.TaskRequest) {
				if tc.input != "" {
					r.Input = json.RawMessage(tc.input)
				}
			})
			e, ok := h.final(req.TaskID).(*a2a.TaskError)
			if !ok || e.Code != tc.code || !strings.Contains(e.Message, tc.text) || !e.State.Terminal() {
				t.Fatalf("reply = %+v, want %s containing %q", h.final(req.TaskID), tc.code, tc.text)
			}
		})
	}
}

func TestExpiredTaskIsNotStarted(t *testing.T) {
	h := newHarness(t)
	ran := make(chan struct{}, 1)
	a := h.agent(Options{Now: func() time.Time { return time.Now().Add(time.Hour) }}, map[string]Handler{
		"echo": func(ctx context.Context, t *Task) (*Result, error) { ran <- struct{}{}; return echo(ctx, t) },
	})
	h.start(a)
	req := h.send("Worker", "echo", "late")
	if code := h.errorCode(req.TaskID); code != a2a.CodeTimeout {
		t.Fatalf("code = %s, want TIMEOUT", code)
	}
	select {
	case <-ran:
		t.Fatal("the handler ran for an expired task")
	default:
	}
}

func TestDeadlineDuringHandlerIsTimeout(t *testing.T) {
	h := newHarness(t)
	sawCancel := make(chan struct{})
	a := h.agent(Options{}, map[string]Handler{
		"sleep": func(ctx context.Context, _ *Task) (*Result, error) {
			<-ctx.Done()
			close(sawCancel)
			return nil, ctx.Err()
		},
	})
	h.start(a)
	req := h.send("Worker", "sleep", "", func(r *a2a.TaskRequest) { r.Deadline = time.Now().Add(300 * time.Millisecond) })
	if code := h.errorCode(req.TaskID); code != a2a.CodeTimeout {
		t.Fatalf("code = %s, want TIMEOUT", code)
	}
	<-sawCancel
}

// A cancel from the task's caller ends the task CANCELED; one sent under
// another caller's name is ignored. The instance queue handles one message
// at a time, in order, so once the caller's cancel of a second task has
// taken effect the foreign cancel, sent before it, has been processed too:
// only then is the first task let finish, and it must finish with its result.
func TestCancelRequest(t *testing.T) {
	h := newHarness(t)
	started := make(chan string, 2)
	release := make(chan struct{})
	a := h.agent(Options{Concurrency: 2}, map[string]Handler{
		"hold": func(ctx context.Context, task *Task) (*Result, error) {
			started <- task.Request.TaskID
			select {
			case <-release:
				return TextResult("finished: " + task.Text()), nil
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		},
	})
	h.start(a)
	kept := h.send("Worker", "hold", "kept")
	barrier := h.send("Worker", "hold", "barrier")
	for range 2 {
		select {
		case <-started:
		case <-time.After(testenv.WaitBound):
			t.Fatal("the two tasks did not both start")
		}
	}
	sendCancel := func(id, caller string) {
		env, err := h.codec.Encode(&a2a.TaskCancel{TaskID: id, Caller: caller, Target: "Worker", Time: time.Now()}, a2a.Trace{})
		if err != nil {
			t.Fatal(err)
		}
		key, _ := a2a.CancelRoutingKey("Worker")
		if err := h.b.Publish(context.Background(), bus.Message{Envelope: env, RoutingKey: key}); err != nil {
			t.Fatal(err)
		}
	}
	sendCancel(kept.TaskID, "SomeoneElse") // not the task's caller: ignored
	sendCancel(barrier.TaskID, testCaller)
	if code := h.errorCode(barrier.TaskID); code != a2a.CodeCanceled {
		t.Fatalf("code = %s, want CANCELED", code)
	}
	close(release)
	switch r := h.final(kept.TaskID).(type) {
	case *a2a.TaskResult:
		if got := a2a.MessageText(r.Message); got != "finished: kept" {
			t.Fatalf("result %q, want %q", got, "finished: kept")
		}
	case *a2a.TaskError:
		t.Fatalf("the task canceled under another caller's name ended %s: %s", r.Code, r.Message)
	}
	if len(h.statuses(kept.TaskID)) == 0 {
		t.Fatal("no working status for the task")
	}
}

func TestGracefulStopRequeuesUnfinished(t *testing.T) {
	h := newHarness(t)
	started := make(chan struct{})
	slow := h.agent(Options{StopTimeout: 100 * time.Millisecond}, map[string]Handler{
		"work": func(ctx context.Context, _ *Task) (*Result, error) {
			close(started)
			<-ctx.Done()
			return nil, ctx.Err()
		},
	})
	errc := h.start(slow)
	req := h.send("Worker", "work", "job")
	<-started
	if err := slow.Close(); err != nil {
		t.Fatal(err)
	}
	if err := <-errc; err != nil {
		t.Fatalf("Run = %v", err)
	}
	// No failure was published: the task went back to the queue ...
	for _, p := range h.all() {
		if e, ok := p.(*a2a.TaskError); ok {
			t.Fatalf("stop published an error: %+v", e)
		}
	}
	// ... and the next instance completes it.
	next := h.agent(Options{}, map[string]Handler{"work": func(_ context.Context, t *Task) (*Result, error) {
		return TextResult(fmt.Sprintf("attempt %d", t.Attempt)), nil
	}})
	h.start(next)
	res, ok := h.final(req.TaskID).(*a2a.TaskResult)
	if !ok || a2a.MessageText(res.Message) != "attempt 2" {
		t.Fatalf("reply = %+v", h.final(req.TaskID))
	}
}

func TestGivesUpAfterMaxAttempts(t *testing.T) {
	h := newHarness(t)
	started := make(chan struct{})
	first := h.agent(Options{StopTimeout: 50 * time.Millisecond}, map[string]Handler{
		"work": func(ctx context.Context, _ *Task) (*Result, error) {
			close(started)
			<-ctx.Done()
			return nil, ctx.Err()
		},
	})
	h.start(first)
	req := h.send("Worker", "work", "poison")
	<-started
	_ = first.Close()
	second := h.agent(Options{MaxAttempts: 1}, map[string]Handler{"work": echo})
	h.start(second)
	e, ok := h.final(req.TaskID).(*a2a.TaskError)
	if !ok || e.Code != a2a.CodeExecutionFailed || !strings.Contains(e.Message, "attempts") {
		t.Fatalf("reply = %+v", h.final(req.TaskID))
	}
	assertDeadLettered(t, h, req.TaskID)
}

func assertDeadLettered(t *testing.T, h *harness, taskID string) {
	t.Helper()
	found := make(chan struct{}, 1)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c := h.broker.Connect()
	defer c.Close()
	_ = c.Consume(ctx, a2a.DeadLetterQueue(a2a.DefaultExchange), bus.ConsumeOptions{}, func(_ context.Context, d *bus.Delivery) error {
		if d.CorrelationID == taskID {
			found <- struct{}{}
			cancel()
		}
		return nil
	})
	select {
	case <-found:
	default:
		t.Fatalf("task %s not in the dead-letter queue", taskID)
	}
}

func TestUndecodableRequestAnsweredAndDeadLettered(t *testing.T) {
	h := newHarness(t)
	h.start(h.agent(Options{}, map[string]Handler{"echo": echo}))
	key, _ := a2a.TaskRoutingKey("Worker")
	msg := bus.Message{
		Envelope: a2a.Envelope{Kind: a2a.KindTaskRequest, MessageID: "bad-1", CorrelationID: "t-bad", ContentType: a2a.ContentTypeJSON,
			Body: []byte(`{"taskId":"t-bad","caller":"Caller","skill":""}`)},
		RoutingKey: key,
	}
	if err := h.b.Publish(context.Background(), msg); err != nil {
		t.Fatal(err)
	}
	if code := h.errorCode("t-bad"); code != a2a.CodeInvalidInput {
		t.Fatalf("code = %s", code)
	}
	assertDeadLettered(t, h, "t-bad")
}

func TestEphemeralRunsMaxTasksThenExits(t *testing.T) {
	h := newHarness(t)
	r1 := h.send("Worker", "echo", "one")
	r2 := h.send("Worker", "echo", "two")
	a := h.agent(Options{Ephemeral: true, MaxTasks: 1, Concurrency: 4}, map[string]Handler{"echo": echo})
	errc := make(chan error, 1)
	go func() { errc <- a.Run(context.Background()) }()
	select {
	case err := <-errc:
		if err != nil {
			t.Fatalf("Run = %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("ephemeral agent did not exit after its task")
	}
	if _, ok := h.final(r1.TaskID).(*a2a.TaskResult); !ok {
		t.Fatal("first task not completed")
	}
	// The second task is still queued for the next job.
	next := h.agent(Options{Ephemeral: true}, map[string]Handler{"echo": echo})
	go func() { errc <- next.Run(context.Background()) }()
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
	if res, ok := h.final(r2.TaskID).(*a2a.TaskResult); !ok || a2a.MessageText(res.Message) != "two" {
		t.Fatalf("second task: %+v", h.final(r2.TaskID))
	}
}

func TestEphemeralIdleTimeout(t *testing.T) {
	h := newHarness(t)
	a := h.agent(Options{Ephemeral: true, IdleTimeout: 200 * time.Millisecond}, map[string]Handler{"echo": echo})
	errc := make(chan error, 1)
	go func() { errc <- a.Run(context.Background()) }()
	select {
	case err := <-errc:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("idle ephemeral agent did not exit")
	}
}

func TestRegistrationErrors(t *testing.T) {
	if _, err := New(Options{Card: a2a.AgentCard{Name: "bad.name"}, Bus: inproc.New(inproc.Options{})}); !errors.Is(err, ErrInvalidOptions) {
		t.Fatalf("bad name: %v", err)
	}
	if _, err := New(Options{Card: a2a.AgentCard{Name: "A"}}); !errors.Is(err, ErrInvalidOptions) {
		t.Fatalf("no bus: %v", err)
	}
	a, err := New(Options{Card: a2a.AgentCard{Name: "A"}, Bus: inproc.New(inproc.Options{})})
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Handle("echo", echo); err != nil {
		t.Fatal(err)
	}
	if err := a.Handle("echo", echo); !errors.Is(err, ErrDuplicateSkill) {
		t.Fatalf("duplicate: %v", err)
	}
	if err := a.Handle("bad skill", echo); err == nil {
		t.Fatal("bad skill id accepted")
	}
	if card := a.Card(); len(card.Skills) != 1 || card.Skills[0].ID != "echo" {
		t.Fatalf("card skills = %+v", card.Skills)
	}
}

func TestMiddlewareOrder(t *testing.T) {
	h := newHarness(t)
	var mu sync.Mutex
	var order []string
	mw := func(name string) Middleware {
		return func(next Handler) Handler {
			return func(ctx context.Context, t *Task) (*Result, error) {
				mu.Lock()
				order = append(order, name)
				mu.Unlock()
				return next(ctx, t)
			}
		}
	}
	a := h.agent(Options{}, nil)
	if err := a.Use(mw("global")); err != nil {
		t.Fatal(err)
	}
	if err := a.Handle("echo", echo, mw("skill")); err != nil {
		t.Fatal(err)
	}
	h.start(a)
	req := h.send("Worker", "echo", "x")
	h.final(req.TaskID)
	mu.Lock()
	defer mu.Unlock()
	if strings.Join(order, ",") != "global,skill" {
		t.Fatalf("order = %v", order)
	}
	if err := a.Use(mw("late")); !errors.Is(err, ErrRunning) {
		t.Fatalf("Use after Run: %v", err)
	}
}

func TestCyclicOrTooLongChainsAreRefusedBeforeRunning(t *testing.T) {
	h := newHarness(t)
	ran := make(chan struct{}, 4)
	h.start(h.agent(Options{MaxDepth: 3}, map[string]Handler{"echo": func(ctx context.Context, task *Task) (*Result, error) {
		ran <- struct{}{}
		return echo(ctx, task)
	}}))
	cycle := h.send("Worker", "echo", "x", func(r *a2a.TaskRequest) { r.CallChain = []string{"Worker", "Middle", testCaller} })
	deep := h.send("Worker", "echo", "x", func(r *a2a.TaskRequest) { r.CallChain = []string{"A", "B", testCaller} })
	ok := h.send("Worker", "echo", "x", func(r *a2a.TaskRequest) { r.CallChain = []string{"A", testCaller} })
	if code := h.errorCode(cycle.TaskID); code != a2a.CodeCycleDetected {
		t.Fatalf("cycle: %s", code)
	}
	if code := h.errorCode(deep.TaskID); code != a2a.CodeDepthExceeded {
		t.Fatalf("depth: %s", code)
	}
	if _, isResult := h.final(ok.TaskID).(*a2a.TaskResult); !isResult {
		t.Fatalf("a short chain was refused: %+v", h.final(ok.TaskID))
	}
	if len(ran) != 1 {
		t.Fatalf("the handler ran %d times, want once (only for the valid chain)", len(ran))
	}
}

func TestHandlersSeeTheirTaskInTheContext(t *testing.T) {
	h := newHarness(t)
	got := make(chan *a2a.TaskRequest, 1)
	h.start(h.agent(Options{}, map[string]Handler{"echo": func(ctx context.Context, task *Task) (*Result, error) {
		req, _, _ := a2a.TaskFromContext(ctx)
		got <- req
		return echo(ctx, task)
	}}))
	req := h.send("Worker", "echo", "x")
	if r := <-got; r == nil || r.TaskID != req.TaskID {
		t.Fatalf("task in context = %+v", r)
	}
}
