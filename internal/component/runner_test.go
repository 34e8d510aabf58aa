// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package component

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/zap"
)

func TestRunOnceCloseIdempotent(t *testing.T) {
	r := New(nil, nil)
	ran := false
	ctx, _, finish, err := r.Start(context.Background(), func() { ran = true })
	if err != nil || !ran || !r.Started() {
		t.Fatalf("start: %v ran=%v", err, ran)
	}
	if _, _, _, err := r.Start(context.Background(), nil); !errors.Is(err, ErrRunning) {
		t.Fatalf("second start: %v", err)
	}
	// Run sees its context end while AfterClose is still open: Close wakes
	// those blocked on the component only once Run has returned.
	openWhileRunning := make(chan bool, 1)
	go func() {
		<-ctx.Done()
		select {
		case <-r.AfterClose():
			openWhileRunning <- false
		default:
			openWhileRunning <- true
		}
		finish()
	}()
	if err := r.Close("x", time.Second); err != nil {
		t.Fatal(err)
	}
	if !<-openWhileRunning {
		t.Fatal("AfterClose was closed before Run returned")
	}
	select {
	case <-r.AfterClose():
	default:
		t.Fatal("AfterClose not closed once Close returned")
	}
	if err := r.Close("x", time.Second); err != nil || !r.Closed() {
		t.Fatalf("second close: %v", err)
	}
}

func TestCloseBeforeStartAndBound(t *testing.T) {
	r := New(nil, nil)
	if err := r.Close("x", time.Second); err != nil {
		t.Fatal(err)
	}
	if _, _, _, err := r.Start(context.Background(), nil); !errors.Is(err, ErrClosed) {
		t.Fatalf("start after close: %v", err)
	}
	stuck := New(nil, nil)
	if _, _, _, err := stuck.Start(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	if err := stuck.Close("stuck thing", 20*time.Millisecond); err == nil || err.Error() != "stuck thing: close: run did not return within 20ms" {
		t.Fatalf("bounded close: %v", err)
	}
	for name, r := range map[string]*Runner{"never started": r, "overran its bound": stuck} {
		select {
		case <-r.AfterClose():
		default:
			t.Errorf("%s: AfterClose not closed once Close returned", name)
		}
	}
}

// A component's own "closed" sentinel, returned by a Start after Close,
// also wraps ErrClosed, with the component's message.
func TestClosedBeforeStartIsTheComponentsAndErrClosed(t *testing.T) {
	own := errors.New("thing: closed")
	r := New(own, nil)
	if err := r.Close("thing", time.Second); err != nil {
		t.Fatal(err)
	}
	_, _, _, err := r.Start(context.Background(), nil)
	if !errors.Is(err, own) || !errors.Is(err, ErrClosed) || err.Error() != "thing: closed" {
		t.Fatalf("start after close: %v, want %v wrapping ErrClosed", err, own)
	}
}

func TestDefaults(t *testing.T) {
	var id string
	var log *zap.Logger
	var now func() time.Time
	Defaults(&id, &log, &now)
	if id == "" || log == nil || now == nil {
		t.Fatal("defaults not filled")
	}
	keep := "mine"
	Defaults(&keep, &log, &now)
	if keep != "mine" {
		t.Fatal("an id given was replaced")
	}
}

func TestDefaultReplacesOnlyUnsetValues(t *testing.T) {
	n, d := 0, -time.Second
	Default(&n, 4)
	Default(&d, time.Minute)
	if n != 4 || d != time.Minute {
		t.Fatalf("unset values became %d, %s; want 4, 1m", n, d)
	}
	n, d = 2, time.Second
	Default(&n, 4)
	Default(&d, time.Minute)
	if n != 2 || d != time.Second {
		t.Fatalf("set values became %d, %s; want them kept", n, d)
	}
}

func TestEveryRunsUntilDone(t *testing.T) {
	done := make(chan struct{})
	var runs atomic.Int32
	returned := make(chan struct{})
	go func() {
		Every(done, time.Millisecond, func() {
			if runs.Add(1) == 3 {
				close(done)
			}
		})
		close(returned)
	}()
	select {
	case <-returned:
	case <-time.After(10 * time.Second):
		t.Fatal("Every did not return once done was closed")
	}
	if n := runs.Load(); n != 3 {
		t.Fatalf("f ran %d times, want 3 (none after done)", n)
	}
}

func TestClosingContextEndsWithClose(t *testing.T) {
	r := New(nil, nil)
	ctx := r.ClosingContext()
	if ctx.Err() != nil {
		t.Fatal("closing context done before Close")
	}
	if err := r.Close("x", time.Second); err != nil {
		t.Fatal(err)
	}
	select {
	case <-ctx.Done():
	case <-time.After(time.Second):
		t.Fatal("closing context not cancelled by Close")
	}
}

// TestWaitWithin: WaitWithin reports a group that finishes within the
// bound, and gives up on one that does not once the bound has passed.
func TestWaitWithin(t *testing.T) {
	var wg sync.WaitGroup
	release := make(chan struct{})
	wg.Go(func() { <-release })
	const bound = 50 * time.Millisecond
	start := time.Now()
	if WaitWithin(&wg, bound) {
		t.Fatal("WaitWithin reported a group that had not finished")
	}
	if waited := time.Since(start); waited < bound {
		t.Fatalf("WaitWithin gave up after %v, before its bound %v", waited, bound)
	}
	close(release)
	if !WaitWithin(&wg, 10*time.Second) {
		t.Fatal("WaitWithin did not report a group that finished")
	}
}
