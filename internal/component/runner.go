// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

// Package component is what the long-running components (agent, caller,
// directory, chat session) share: a Runner (Run once under a context that
// Close cancels; Close waits for Run within a bound), a Group that runs
// parts side by side and stops them in stages, the defaults of their
// options, Every for their periodic loops and WaitWithin for the bounded
// wait of a Close.
//
// A Runner's Close, in order: ClosingContext is cancelled (work in flight gives up and
// is handed back), Run's context is cancelled, Run is waited for (bounded),
// and only then is AfterClose closed (callers blocked on the component are
// woken once nothing of it runs any more).
package component

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/google/uuid"
	"go.uber.org/zap"
)

// Errors returned by Start when the component gave New none of its own.
var (
	// ErrClosed: Close was called before Run.
	ErrClosed = errors.New("component: closed")
	// ErrRunning: Run was called twice.
	ErrRunning = errors.New("component: already running")
)

// Runner tracks one component's Run and Close. The zero value is not usable: use New.
type Runner struct {
	errClosed, errRunning error // what Start returns: the component's own sentinels

	mu      sync.Mutex
	started bool
	closed  bool
	stop    context.CancelFunc
	done    chan struct{}
	// closing is cancelled by Close.
	closing       context.Context
	cancelClosing context.CancelFunc
	// afterClose is closed when Close has finished.
	afterClose chan struct{}
}

// New returns a runner that has neither started nor closed. Start returns
// closed once Close was called, and running for a second Start: the
// component's own sentinel errors (ErrClosed and ErrRunning when nil).
// closed is returned wrapping ErrClosed as well, so that what runs
// components of every kind tells "closed before it ran" apart.
func New(closed, running error) *Runner {
	errClosed := error(ErrClosed)
	if closed != nil && closed != ErrClosed {
		errClosed = closedError{closed}
	}
	r := &Runner{errClosed: errClosed, errRunning: cmp.Or(running, ErrRunning),
		done: make(chan struct{}), afterClose: make(chan struct{})}
	r.closing, r.cancelClosing = context.WithCancel(context.Background())
	return r
}

// closedError is a component's own "closed" sentinel, which also wraps
// ErrClosed; its message is the component's.
type closedError struct{ own error }

func (e closedError) Error() string   { return e.own.Error() }
func (e closedError) Unwrap() []error { return []error{e.own, ErrClosed} }

// Start marks the component running and returns the context its Run works
// under (cancelled by Close), its cancel function, and finish, which Run
// must call (deferred) when it returns. onStart runs under the lock, for
// work that must not race with a second Start.
func (r *Runner) Start(ctx context.Context, onStart func()) (runCtx context.Context, stop context.CancelFunc, finish func(), err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return nil, nil, nil, r.errClosed
	}
	if r.started {
		return nil, nil, nil, r.errRunning
	}
	r.started = true
	if onStart != nil {
		onStart()
	}
	runCtx, stop = context.WithCancel(ctx)
	r.stop = stop
	return runCtx, stop, func() { stop(); close(r.done) }, nil
}

// Started reports whether Start succeeded; it is how components refuse
// changes after Run began.
func (r *Runner) Started() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.started
}

// Done is closed when Run has returned (never, if it did not start).
func (r *Runner) Done() <-chan struct{} { return r.done }

// Closed reports whether Close was called.
func (r *Runner) Closed() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.closed
}

// AfterClose is closed when Close has finished: Run has returned (or never
// started, or overran Close's bound).
func (r *Runner) AfterClose() <-chan struct{} { return r.afterClose }

// ClosingContext is cancelled when Close is called: the context of work
// that outlives a stopped consumer but not the component.
func (r *Runner) ClosingContext() context.Context { return r.closing }

// Close cancels Run and waits for it to return, at most bound, then closes
// AfterClose; what names what timed out. Idempotent: a second Close returns
// at once.
func (r *Runner) Close(what string, bound time.Duration) error {
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return nil
	}
	r.closed = true
	r.cancelClosing()
	stop, started := r.stop, r.started
	r.mu.Unlock()
	defer close(r.afterClose)
	if !started || stop == nil {
		return nil
	}
	stop()
	select {
	case <-r.done:
		return nil
	case <-time.After(bound):
		return fmt.Errorf("%s: close: run did not return within %s", what, bound)
	}
}

// Defaults fills the options every component shares: a random instance id,
// a no-op logger and the wall clock.
func Defaults(instanceID *string, logger **zap.Logger, now *func() time.Time) {
	if *instanceID == "" {
		*instanceID = uuid.NewString()
	}
	if *logger == nil {
		*logger = zap.NewNop()
	}
	if *now == nil {
		*now = time.Now
	}
}

// Default sets *v to def when it is zero or negative: the rule of the
// numeric options of agents and callers.
func Default[T ~int | ~int64](v *T, def T) {
	if *v <= 0 {
		*v = def
	}
}

// Every runs f every interval until done is closed (a context's Done, or a
// component's stop channel); the first run is one interval in.
func Every(done <-chan struct{}, interval time.Duration, f func()) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-done:
			return
		case <-t.C:
			f()
		}
	}
}

// WaitWithin waits for wg, at most bound; it reports whether wg finished.
// A wait that overruns leaves one goroutine waiting on wg until it does.
func WaitWithin(wg *sync.WaitGroup, bound time.Duration) bool {
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	t := time.NewTimer(bound)
	defer t.Stop()
	select {
	case <-done:
		return true
	case <-t.C:
		return false
	}
}
