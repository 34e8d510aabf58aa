// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package bustest

import (
	"bytes"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/a2abus/a2abus/bus"
	"github.com/a2abus/a2abus/internal/testenv"
	"github.com/a2abus/a2abus/pkg/a2a"
)

// testRoundTrip: every field survives publish→consume, and the publisher may
// reuse its buffers once Publish returns.
func testRoundTrip(t *testing.T, env Env) {
	b := connect(t, env)
	spec := taskQueue(t, b)
	ts := time.Now().Add(-time.Hour)
	body := []byte(`{"text":"héllo","n":[1,2,3]}`)
	headers := map[string]string{"a2a-version": "1.0", "traceparent": "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"}
	full := bus.Message{
		Envelope: a2a.Envelope{
			Kind:          "task.request",
			MessageID:     "m-" + unique(),
			CorrelationID: "task-" + unique(),
			ReplyTo:       "agent.response.Caller" + unique(),
			ContentType:   "application/json",
			Priority:      7,
			Expiration:    time.Minute,
			Timestamp:     ts,
			Headers:       headers,
			Body:          body,
		},
		RoutingKey: spec.Bindings[0],
	}
	publish(t, b, full)
	want := full
	want.Body = bytes.Clone(body)
	want.Headers = map[string]string{"a2a-version": "1.0", "traceparent": headers["traceparent"]}
	// The caller reuses its buffers: the queued message must not change.
	copy(body, bytes.Repeat([]byte("x"), len(body)))
	headers["a2a-version"] = "changed"

	minimal := bus.Message{Envelope: a2a.Envelope{MessageID: "m-" + unique()}, RoutingKey: spec.Bindings[0]}
	publish(t, b, minimal)

	r := newRecorder()
	consume(t, b, spec.Name, bus.ConsumeOptions{MaxAttempts: 4}, r.handle)
	testenv.Eventually(t, "both messages delivered", func() bool { return r.has(full.MessageID, minimal.MessageID) })

	got, _ := r.find(full.MessageID)
	checkField(t, "RoutingKey", got.RoutingKey, want.RoutingKey)
	checkField(t, "Kind", got.Kind, want.Kind)
	checkField(t, "CorrelationID", got.CorrelationID, want.CorrelationID)
	checkField(t, "ReplyTo", got.ReplyTo, want.ReplyTo)
	checkField(t, "ContentType", got.ContentType, want.ContentType)
	checkField(t, "Priority", got.Priority, want.Priority)
	checkField(t, "Timestamp (s)", got.Timestamp.Unix(), want.Timestamp.Unix())
	checkField(t, "Body", string(got.Body), string(want.Body))
	for k, v := range want.Headers {
		checkField(t, "Headers["+k+"]", got.Headers[k], v)
	}
	checkField(t, "Queue", got.Queue, spec.Name)
	checkField(t, "Attempt", got.Attempt, 1)
	checkField(t, "MaxAttempts", got.MaxAttempts, 4)

	bare, _ := r.find(minimal.MessageID)
	checkField(t, "minimal Body length", len(bare.Body), 0)
	checkField(t, "minimal Attempt", bare.Attempt, 1)
	checkField(t, "minimal Kind", bare.Kind, "")
}

func checkField[T comparable](t *testing.T, field string, got, want T) {
	t.Helper()
	if got != want {
		t.Errorf("%s = %v, want %v", field, got, want)
	}
}

// testTopicRouting: AMQP topic rules ('*' exactly one word, '#' zero or
// more), and a message matching two bindings of one queue reaches it once.
func testTopicRouting(t *testing.T, env Env) {
	b := connect(t, env)
	s := unique()
	star := instanceQueue(t, b, "star."+s+".*")
	hash := instanceQueue(t, b, "hash."+s+".#", "hash."+s+".x.*")
	routed := map[string]bus.QueueSpec{
		"star." + s + ".a":       star,
		"hash." + s:              hash,
		"hash." + s + ".x.y":     hash, // matches both of hash's bindings
		"hash." + s + ".a.b.c.d": hash,
	}
	recs := map[string]*recorder{star.Name: newRecorder(), hash.Name: newRecorder()}
	for name, r := range recs {
		consume(t, b, name, bus.ConsumeOptions{}, r.handle)
	}
	ids := map[string]string{}
	for key := range routed {
		m := message(key)
		publish(t, b, m)
		ids[key] = m.MessageID
	}
	for _, key := range []string{"star." + s + ".a.b", "star." + s, "hash", "x.hash." + s, "star." + s + "x.a"} {
		expectErr(t, "publish to unbound key "+key, b.Publish(t.Context(), message(key)), bus.ErrUnroutable)
	}
	for key, spec := range routed {
		r := recs[spec.Name]
		testenv.Eventually(t, "message to "+key+" delivered to "+spec.Name, func() bool { return r.has(ids[key]) })
		if n := r.count(ids[key]); n != 1 {
			t.Errorf("message to %q delivered %d times, want once", key, n)
		}
	}
	if got, want := recs[star.Name].len()+recs[hash.Name].len(), len(routed); got != want {
		t.Errorf("%d deliveries for %d messages", got, want)
	}
}

// instanceQueue declares a fresh instance queue bound to keys.
func instanceQueue(t *testing.T, b bus.Bus, keys ...string) bus.QueueSpec {
	t.Helper()
	spec, err := bus.InstanceQueue("Conf"+unique(), "i1", keys...)
	if err != nil {
		t.Fatalf("instance queue spec: %v", err)
	}
	declare(t, b, spec)
	return spec
}

// testOrder: with one handler at a time, a queue delivers in publish order.
func testOrder(t *testing.T, env Env) {
	const n = 200
	b := connect(t, env)
	spec := taskQueue(t, b)
	ids := publishN(t, b, spec.Bindings[0], n/2)
	r := newRecorder()
	consume(t, b, spec.Name, bus.ConsumeOptions{Concurrency: 1}, r.handle)
	ids = append(ids, publishN(t, b, spec.Bindings[0], n/2)...)
	testenv.Eventually(t, "all messages delivered", func() bool { return r.len() >= n })
	for i, g := range r.all() {
		if i >= n || g.MessageID != ids[i] {
			t.Fatalf("delivery %d is %q, want %q (publish order)", i, g.MessageID, ids[min(i, n-1)])
		}
		if g.Attempt != 1 {
			t.Fatalf("delivery %d has attempt %d, want 1", i, g.Attempt)
		}
	}
}

// testNoConfirmKeepsOrder: unconfirmed publishes (status updates) are
// delivered, and a task's messages — unconfirmed ones, then a confirmed one
// — arrive in publish order whatever else is published meanwhile.
// An unconfirmed publish nobody can receive is no error.
func testNoConfirmKeepsOrder(t *testing.T, env Env) {
	const tasks, perTask = 20, 5
	b := connect(t, env)
	spec := taskQueue(t, b)
	r := newRecorder()
	consume(t, b, spec.Name, bus.ConsumeOptions{Concurrency: 1}, r.handle)
	want := map[string][]string{} // correlation id -> message ids in publish order
	var mu sync.Mutex
	var wg sync.WaitGroup
	for i := range tasks {
		wg.Go(func() {
			id := "task-" + strconv.Itoa(i) + "-" + unique()
			for j := range perTask {
				m := message(spec.Bindings[0])
				m.CorrelationID = id
				m.NoConfirm = j < perTask-1 // the last one, the "result", is confirmed
				m.Transient = m.NoConfirm
				mu.Lock()
				want[id] = append(want[id], m.MessageID)
				mu.Unlock()
				if err := b.Publish(t.Context(), m); err != nil {
					t.Errorf("publish %d of %s: %v", j, id, err)
				}
			}
		})
	}
	wg.Wait()
	testenv.Eventually(t, "all messages delivered", func() bool { return r.len() >= tasks*perTask })
	got := map[string][]string{}
	for _, d := range r.all() {
		got[d.CorrelationID] = append(got[d.CorrelationID], d.MessageID)
	}
	for id, ids := range want {
		if strings.Join(got[id], ",") != strings.Join(ids, ",") {
			t.Errorf("%s delivered as %v, want %v", id, got[id], ids)
		}
	}
	lost := message("agent.task.Nobody" + unique())
	lost.NoConfirm = true
	if err := b.Publish(t.Context(), lost); err != nil {
		t.Errorf("unconfirmed publish to an unbound key: %v, want nil", err)
	}
}

// testPriority: on a task queue a higher priority is served first, FIFO
// within one priority.
func testPriority(t *testing.T, env Env) {
	const backlog = 50
	b := connect(t, env)
	spec := taskQueue(t, b)
	ids := make([]string, backlog)
	for i := range ids {
		m := message(spec.Bindings[0])
		m.Priority = 1
		publish(t, b, m)
		ids[i] = m.MessageID
	}
	urgent := message(spec.Bindings[0])
	urgent.Priority = bus.MaxPriority
	publish(t, b, urgent)

	r := newRecorder()
	consume(t, b, spec.Name, bus.ConsumeOptions{Concurrency: 1}, r.handle)
	testenv.Eventually(t, "all messages delivered", func() bool { return r.len() >= backlog+1 })
	got := r.all()
	if got[0].MessageID != urgent.MessageID {
		t.Fatalf("first delivery %q (priority %d), want the priority-%d message %q",
			got[0].MessageID, got[0].Priority, bus.MaxPriority, urgent.MessageID)
	}
	for i, id := range ids {
		if got[i+1].MessageID != id {
			t.Fatalf("priority-1 delivery %d is %q, want %q (FIFO within a priority)", i, got[i+1].MessageID, id)
		}
	}
}

// testExpiration: a message that waited longer than its Expiration is never
// handed to a handler; one published after it still is.
func testExpiration(t *testing.T, env Env) {
	const ttl = 100 * time.Millisecond
	b := connect(t, env)
	spec := taskQueue(t, b)
	expiring := message(spec.Bindings[0])
	expiring.Expiration = ttl
	publish(t, b, expiring)
	// Let the message outlive its expiration while nobody consumes: this
	// waits for time itself to pass, not for another goroutine.
	time.Sleep(3 * ttl)
	marker := message(spec.Bindings[0])
	publish(t, b, marker)

	r := newRecorder()
	consume(t, b, spec.Name, bus.ConsumeOptions{}, r.handle)
	testenv.Eventually(t, "marker delivered", func() bool { return r.has(marker.MessageID) })
	if r.has(expiring.MessageID) {
		t.Fatalf("message %q delivered after its %v expiration", expiring.MessageID, ttl)
	}
}
