package agent

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/a2abus/a2abus/bus"
	"github.com/a2abus/a2abus/internal/testworld"
	"github.com/a2abus/a2abus/internal/testworld/callers"
	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/caller"
)

// losingBus hands its handlers a context that lose ends with
// bus.ErrDeliveryLost, as bus/rabbitmq does when a delivery's channel closes.
type losingBus struct {
	bus.Bus
	mu    sync.Mutex
	loses []context.CancelCauseFunc
}

func (b *losingBus) Consume(ctx context.Context, queue string, opts bus.ConsumeOptions, h bus.Handler) error {
	return b.Bus.Consume(ctx, queue, opts, func(ctx context.Context, d *bus.Delivery) error {
		lctx, lose := context.WithCancelCause(ctx)
		defer lose(nil)
		b.mu.Lock()
		b.loses = append(b.loses, lose)
		b.mu.Unlock()
		return h(lctx, d)
	})
}

// lose ends the context of every delivery being handled with ErrDeliveryLost.
func (b *losingBus) lose() {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, lose := range b.loses {
		lose(bus.ErrDeliveryLost)
	}
}

// A task whose delivery is lost stops, sends no reply and runs again (the
// broker delivers it anew): the caller gets the second run's result, not a
// CANCELED or failed first one.
func TestLostDeliveryStopsTheTaskWithoutReply(t *testing.T) {
	w := testworld.Embedded(t)
	target := w.N("Waiter")
	b := &losingBus{Bus: w.Connect(t)}
	a, err := New(Options{Card: a2a.AgentCard{Name: target}, Bus: b, StopTimeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	var runs atomic.Int32
	firstStarted := make(chan struct{})
	if err := a.Handle("wait", func(ctx context.Context, task *Task) (*Result, error) {
		if runs.Add(1) == 1 {
			close(firstStarted)
			<-ctx.Done() // waits for what never comes, unless the delivery is lost
			return nil, ctx.Err()
		}
		return TextResult("second run"), nil
	}); err != nil {
		t.Fatal(err)
	}
	testworld.Start(t, a)
	c := callers.Start(t, w, w.N("Prober"))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	go func() { <-firstStarted; b.lose() }()
	out, err := c.Call(ctx, caller.Request{Target: target, Skill: "wait", Text: "x", Timeout: 20 * time.Second}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := out.Err(); err != nil || out.Result.Text() != "second run" || runs.Load() != 2 {
		t.Fatalf("outcome %v %q after %d runs; want the second run's result", err, out.Result.Text(), runs.Load())
	}
}
