// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package rabbitmq

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"

	"github.com/a2abus/a2abus/bus"
	"github.com/a2abus/a2abus/pkg/a2a"
)

// AMQP method ids (class, method) the close-ok holder looks for.
var (
	methodChannelCloseOk    = []byte{0, 20, 0, 41}
	methodConnectionClose   = []byte{0, 10, 0, 50}
	methodQueueBindOk       = []byte{0, 50, 0, 21}
	methodExchangeDeclareOk = []byte{0, 40, 0, 11}
)

// closeOkHolder is a proxy to the broker that holds every channel.close-ok
// the broker sends until release, notes when a client closes its
// connection and counts the methods the broker sends. What waits for a
// channel's close-ok waits until release.
type closeOkHolder struct {
	t      *testing.T
	ln     net.Listener
	target string

	mu        sync.Mutex
	released  bool
	held      []func()       // writes of the held frames, in order
	counts    map[string]int // the broker's methods by (class, method)
	connClose chan struct{}  // closed when a client sends connection.close
	closeOnce sync.Once
}

// newCloseOkHolder starts a holder in front of the broker of url and
// returns it with the URL to dial through it.
func newCloseOkHolder(t *testing.T, rawURL string) (*closeOkHolder, string) {
	t.Helper()
	u, err := url.Parse(rawURL)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	h := &closeOkHolder{t: t, ln: ln, target: u.Host, connClose: make(chan struct{}), counts: map[string]int{}}
	t.Cleanup(func() { _ = ln.Close(); h.release() })
	go h.accept()
	u.Host = ln.Addr().String()
	return h, u.String()
}

// dialCounted dials a bus through a frame proxy that holds nothing and
// only counts the broker's replies; the bus is closed at the test's end.
func dialCounted(t *testing.T, e *testEnv) (*Bus, *closeOkHolder) {
	t.Helper()
	h, viaURL := newCloseOkHolder(t, e.url)
	h.release()
	b, err := Dial(t.Context(), Options{URL: viaURL, Exchange: e.exchange, ConnectionName: t.Name()})
	if err != nil {
		t.Fatalf("Dial: %v", err)
	}
	t.Cleanup(func() { _ = b.Close() })
	return b, h
}

func (h *closeOkHolder) accept() {
	for {
		in, err := h.ln.Accept()
		if err != nil {
			return
		}
		out, err := net.Dial("tcp", h.target)
		if err != nil {
			_ = in.Close()
			continue
		}
		h.t.Cleanup(func() { _ = in.Close(); _ = out.Close() })
		go h.frames(in, out, func(frame []byte) { // to the broker: never held
			if bytes.HasPrefix(frame[7:], methodConnectionClose) {
				h.closeOnce.Do(func() { close(h.connClose) })
			}
			_, _ = out.Write(frame)
		}, true)
		var wmu sync.Mutex // one writer of frames to the client at a time (release writes too)
		go h.frames(out, in, func(frame []byte) {
			write := func() {
				wmu.Lock()
				defer wmu.Unlock()
				_, _ = in.Write(frame)
			}
			if frame[0] == 1 {
				h.mu.Lock()
				h.counts[string(frame[7:11])]++
				h.mu.Unlock()
			}
			if bytes.HasPrefix(frame[7:], methodChannelCloseOk) && h.hold(write) {
				return
			}
			write()
		}, false)
	}
}

// hold keeps write for release and reports true, or false once released.
func (h *closeOkHolder) hold(write func()) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.released {
		return false
	}
	h.held = append(h.held, write)
	return true
}

// release sends the held close-oks and stops holding.
func (h *closeOkHolder) release() {
	h.mu.Lock()
	held := h.held
	h.held, h.released = nil, true
	h.mu.Unlock()
	for _, write := range held {
		write()
	}
}

// frames reads AMQP frames from src and hands each to forward (the
// client's 8-byte protocol header first, when fromClient); it closes dst
// when src ends.
func (h *closeOkHolder) frames(src, dst net.Conn, forward func([]byte), fromClient bool) {
	defer func() { _ = dst.Close() }()
	if fromClient {
		header := make([]byte, 8)
		if _, err := io.ReadFull(src, header); err != nil {
			return
		}
		if _, err := dst.Write(header); err != nil {
			return
		}
	}
	for {
		head := make([]byte, 7)
		if _, err := io.ReadFull(src, head); err != nil {
			return
		}
		frame := make([]byte, 7+int(binary.BigEndian.Uint32(head[3:]))+1)
		copy(frame, head)
		if _, err := io.ReadFull(src, frame[7:]); err != nil {
			return
		}
		if frame[0] == 1 && len(frame) < 12 { // a method frame too short for its ids
			return
		}
		forward(frame)
	}
}

// TestDeclareAndConsumeDoNotWaitForTheChannelClose: a declaration's
// throwaway channel, and a stopped consumer's, are closed without waiting
// for the broker's close-ok (a round trip each, on the one-shot job's
// path): Dial, Declare and a stopped Consume return while every close-ok
// is held. Close still closes a stopped consumer's channel before the
// connections, so that the acks it flushed are settled first: no
// connection.close is sent while that close-ok is held.
func TestDeclareAndConsumeDoNotWaitForTheChannelClose(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	h, heldURL := newCloseOkHolder(t, e.url)
	bound := time.After(waitBound)
	type result struct {
		b   *Bus
		err error
	}
	dialled := make(chan result, 1)
	go func() {
		b, err := Dial(t.Context(), Options{URL: heldURL, Exchange: e.exchange, ConnectionName: t.Name()})
		dialled <- result{b, err}
	}()
	var b *Bus
	select {
	case r := <-dialled:
		if r.err != nil {
			t.Fatalf("Dial: %v", r.err)
		}
		b = r.b
	case <-bound:
		t.Fatal("Dial waited for a channel's close-ok")
	}
	defer func() { h.release(); _ = b.Close() }()

	spec, err := bus.TaskQueue("Rmq" + unique())
	if err != nil {
		t.Fatal(err)
	}
	e.track(spec.Name)
	declared := make(chan error, 1)
	go func() { declared <- b.Declare(t.Context(), spec) }()
	select {
	case err := <-declared:
		if err != nil {
			t.Fatalf("Declare: %v", err)
		}
	case <-bound:
		t.Fatal("Declare waited for its channel's close-ok")
	}

	got := newCollector()
	ctx, cancel := context.WithCancel(t.Context())
	consumed := make(chan error, 1)
	go func() { consumed <- b.Consume(ctx, spec.Name, bus.ConsumeOptions{}, got.handle) }()
	if err := b.Publish(t.Context(), message(spec.Name)); err != nil {
		t.Fatalf("publish: %v", err)
	}
	got.next(t) // acked when the handler returns
	cancel()
	select {
	case err := <-consumed:
		if err != nil {
			t.Fatalf("Consume: %v", err)
		}
	case <-bound:
		t.Fatal("a stopped Consume waited for its channel's close-ok")
	}

	closed := make(chan error, 1)
	go func() { closed <- b.Close() }()
	select {
	case <-h.connClose:
		t.Fatal("Close closed a connection before the stopped consumer's channel was closed")
	case <-time.After(300 * time.Millisecond):
	}
	h.release()
	select {
	case err := <-closed:
		if err != nil {
			t.Fatalf("Close: %v", err)
		}
	case <-time.After(waitBound):
		t.Fatal("Close did not return once the close-oks came")
	}
}

// count is how many of method (class and method ids) the broker has sent.
func (h *closeOkHolder) count(method []byte) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.counts[string(method)]
}

// TestDeclareBindsInOneRoundTrip: a queue's bindings are sent together,
// only the last one waiting for its bind-ok: declaring a queue with three
// bindings gets one bind-ok from the broker, not three.
func TestDeclareBindsInOneRoundTrip(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	b, h := dialCounted(t, e)
	q := "rmq.bind." + unique()
	spec := bus.QueueSpec{Name: q, Kind: bus.KindTask, Bindings: []string{q + ".one", q + ".two", q + ".three"}}
	e.track(spec.Name)
	before := h.count(methodQueueBindOk)
	if err := b.Declare(t.Context(), spec); err != nil {
		t.Fatalf("Declare: %v", err)
	}
	if n := h.count(methodQueueBindOk) - before; n != 1 {
		t.Errorf("%d bind-oks for a queue with three bindings, want 1", n)
	}
	for _, key := range spec.Bindings { // every binding made: routed, not returned
		if err := b.Publish(t.Context(), message(key)); err != nil {
			t.Errorf("publish with key %q: %v", key, err)
		}
	}
}

// TestBindRefusedIsTheBrokersError: a binding refused while it was not
// waited for still fails the declaration with the broker's error (here,
// a queue that does not exist: 404), whichever binding it was.
func TestBindRefusedIsTheBrokersError(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	for _, keys := range [][]string{{"a.one"}, {"a.one", "a.two"}, {"a.one", "a.two", "a.three"}} {
		conn, ch := rawChannel(t, e.url)
		err := bindQueue(ch, ch.NotifyClose(make(chan *amqp.Error, 1)), "missing."+unique(), "amq.topic", keys)
		_ = conn.Close()
		var ae *amqp.Error
		if !errors.As(err, &ae) || ae.Code != amqp.NotFound {
			t.Errorf("bind %d keys to a missing queue = %v, want the broker's NOT_FOUND", len(keys), err)
		}
	}
}

// TestDialDeclaresTheExchangesWithoutWaiting: the exchanges are declared
// without waiting for their declare-oks (the dead queue's declaration is
// answered after them): a Dial gets none from the broker.
func TestDialDeclaresTheExchangesWithoutWaiting(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	_, h := dialCounted(t, e)
	if n := h.count(methodExchangeDeclareOk); n != 0 {
		t.Errorf("%d exchange.declare-oks, want none", n)
	}
}

// TestDialRefusedExchangeIsATopologyMismatch: an exchange of the bus's name
// that exists with another type fails Dial with bus.ErrTopologyMismatch
// and the broker's reason, which names it, although its declaration was
// not waited for.
func TestDialRefusedExchangeIsATopologyMismatch(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	conn, ch := rawChannel(t, e.url)
	defer func() { _ = conn.Close() }()
	if err := ch.ExchangeDeclare(e.exchange, amqp.ExchangeDirect, true, false, false, false, nil); err != nil {
		t.Fatal(err)
	}
	if err := ch.ExchangeDeclare(a2a.DeadLetterExchange(e.exchange), amqp.ExchangeTopic, true, false, false, false, nil); err != nil {
		t.Fatal(err) // the environment's clean-up deletes both
	}
	b, err := Dial(t.Context(), Options{URL: e.url, Exchange: e.exchange, ConnectionName: t.Name()})
	if err == nil {
		_ = b.Close()
		t.Fatal("Dial succeeded with the exchange of another type")
	}
	if !errors.Is(err, bus.ErrTopologyMismatch) || !strings.Contains(err.Error(), "exchange '"+e.exchange+"'") {
		t.Fatalf("Dial = %v, want a topology mismatch naming exchange %q", err, e.exchange)
	}
	t.Logf("Dial: %v", err)
}

// TestCloseDoesNotWaitForAnInstanceConsumersChannel: a stopped consumer of
// an instance queue (exclusive: its messages go with the connection) has
// its channel closed without Close waiting for the close-ok before it
// closes the connections: Close returns while every close-ok is held.
func TestCloseDoesNotWaitForAnInstanceConsumersChannel(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	h, heldURL := newCloseOkHolder(t, e.url)
	b, err := Dial(t.Context(), Options{URL: heldURL, Exchange: e.exchange, ConnectionName: t.Name()})
	if err != nil {
		t.Fatalf("Dial: %v", err)
	}
	defer func() { h.release(); _ = b.Close() }()
	spec, err := bus.InstanceQueue("Rmq"+unique(), unique(), "rmq.inst."+unique())
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Declare(t.Context(), spec); err != nil {
		t.Fatalf("Declare: %v", err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	consumed := make(chan error, 1)
	go func() { consumed <- b.Consume(ctx, spec.Name, bus.ConsumeOptions{}, newCollector().handle) }()
	if err := b.Publish(t.Context(), message(spec.Bindings[0])); err != nil { // one to ack
		t.Fatalf("publish: %v", err)
	}
	cancel()
	if err := <-consumed; err != nil {
		t.Fatalf("Consume: %v", err)
	}
	closed := make(chan error, 1)
	go func() { closed <- b.Close() }()
	select {
	case err := <-closed:
		if err != nil {
			t.Fatalf("Close: %v", err)
		}
	case <-time.After(waitBound):
		t.Fatal("Close waited for the instance consumer's channel close-ok")
	}
}
