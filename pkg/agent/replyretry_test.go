// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package agent

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/a2abus/a2abus/bus"
	"github.com/a2abus/a2abus/bus/rabbitmq"
	"github.com/a2abus/a2abus/internal/testenv"
	"github.com/a2abus/a2abus/internal/testworld"
	"github.com/a2abus/a2abus/pkg/a2a"
)

// replyWorld runs one agent on the real broker whose skill counts its runs
// and answers with the attempt (a run after the first waits for again to
// close), and a collector of its caller's replies.
func replyWorld(t *testing.T, replyTimeout time.Duration, again <-chan struct{}) (r *replies, runs *atomic.Int32, target, caller string) {
	return replyWorldBounded(t, replyTimeout, 0, again)
}

// replyWorldBounded is replyWorld with the bus's publish timeout (0: its default).
func replyWorldBounded(t *testing.T, replyTimeout, publishTimeout time.Duration, again <-chan struct{}) (r *replies, runs *atomic.Int32, target, caller string) {
	t.Helper()
	w := testworld.Real(t)
	target, caller = w.N("Replier"), w.N("Asker")
	ctx, cancel := context.WithTimeout(context.Background(), testenv.WaitBound)
	defer cancel()
	b, err := rabbitmq.Dial(ctx, rabbitmq.Options{URL: w.AMQPURL, Exchange: w.Exchange, PublishTimeout: publishTimeout})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = b.Close() })
	a, err := New(Options{Card: a2a.AgentCard{Name: target}, Bus: b, ReplyTimeout: replyTimeout})
	if err != nil {
		t.Fatal(err)
	}
	runs = new(atomic.Int32)
	if err := a.Handle("count", func(ctx context.Context, task *Task) (*Result, error) {
		if runs.Add(1) > 1 {
			select {
			case <-again:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
		return TextResult(fmt.Sprintf("attempt %d", task.Attempt)), nil
	}); err != nil {
		t.Fatal(err)
	}
	go func() { _ = a.Run(context.Background()) }()
	t.Cleanup(func() { _ = a.Close() })
	return collectReplies(t, b, caller), runs, target, caller
}

// ask publishes one task for target from caller and returns its id.
func ask(r *replies, target, caller string) string {
	req := &a2a.TaskRequest{TaskID: uuid.NewString(), SessionID: "s1", Caller: caller, Target: target, Skill: "count",
		Message: a2a.NewTextMessage(a2a.MessageRoleUser, "x"), Deadline: time.Now().Add(time.Minute)}
	r.publish(req)
	return req.TaskID
}

// A reply the broker refuses for a while (the caller's response queue
// nacks publishes) is retried within ReplyTimeout: once the queue takes
// publishes again the caller gets its one answer, and the task ran once.
func TestReplyRetriedUntilTheBrokerTakesIt(t *testing.T) {
	t.Parallel()
	r, runs, target, caller := replyWorld(t, time.Minute, nil)
	queue, err := bus.ResponseQueue(caller)
	if err != nil {
		t.Fatal(err)
	}
	lift := testenv.RejectPublishes(t, queue.Name)
	id := ask(r, target, caller)
	testenv.Eventually(t, "the task ran", func() bool { return runs.Load() == 1 })
	time.Sleep(300 * time.Millisecond) // a few refused publishes
	lift()
	res, ok := r.final(id).(*a2a.TaskResult)
	if !ok || a2a.MessageText(res.Message) != "attempt 1" {
		t.Fatalf("final reply %+v, want the result of attempt 1", r.final(id))
	}
	if n := runs.Load(); n != 1 {
		t.Errorf("the task ran %d times, want once: the reply was retried, not the task", n)
	}
}

// A reply still refused when ReplyTimeout has passed sends the task back
// to its queue: it runs again and that run's reply is the answer, the
// only one the caller gets. Both ways the reply is bounded: by a context
// of its own when the bus's publish timeout (10s) is longer than
// ReplyTimeout, by the bus and then a deadline on the retries when it is
// shorter (the reply's first attempt has no context of its own).
func TestReplyRefusedPastItsTimeoutRunsTheTaskAgain(t *testing.T) {
	t.Parallel()
	for name, publishTimeout := range map[string]time.Duration{"bus bound longer": 0, "bus bound shorter": 200 * time.Millisecond} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			replyRefusedPastItsTimeout(t, publishTimeout)
		})
	}
}

func replyRefusedPastItsTimeout(t *testing.T, publishTimeout time.Duration) {
	again := make(chan struct{})
	r, runs, target, caller := replyWorldBounded(t, 500*time.Millisecond, publishTimeout, again)
	queue, err := bus.ResponseQueue(caller)
	if err != nil {
		t.Fatal(err)
	}
	lift := testenv.RejectPublishes(t, queue.Name)
	id := ask(r, target, caller)
	testenv.Eventually(t, "the task running again", func() bool { return runs.Load() == 2 })
	lift()
	close(again)
	res, ok := r.final(id).(*a2a.TaskResult)
	if !ok || a2a.MessageText(res.Message) != "attempt 2" {
		t.Fatalf("final reply %+v, want the result of attempt 2", r.final(id))
	}
	time.Sleep(500 * time.Millisecond)
	finals := 0
	for _, p := range r.all() {
		if res, ok := p.(*a2a.TaskResult); ok && res.TaskID == id {
			finals++
		}
	}
	if finals != 1 {
		t.Errorf("the caller got %d results, want 1", finals)
	}
}
