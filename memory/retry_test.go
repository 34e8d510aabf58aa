// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package memory_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/a2abus/a2abus/memory"
)

// The one rule: what waiting may cure is retried, answers and bugs are not.
func TestTransientRule(t *testing.T) {
	var syntax error = &json.SyntaxError{}
	var typ error = &json.UnmarshalTypeError{Value: "number"}
	for _, tc := range []struct {
		err  error
		want bool
	}{
		{nil, false},
		{memory.ErrUnavailable, true},
		{fmt.Errorf("set k: %w: i/o timeout", memory.ErrUnavailable), true},
		{fmt.Errorf("set k: %w: NOPERM this user has no permissions to run the 'set' command", memory.ErrRefused), true},
		{fmt.Errorf("set k: %w: OOM command not allowed when used memory > 'maxmemory'", memory.ErrRefused), true},
		// An error that is not working memory's is not retried as one.
		{errors.New("caller: unknown task"), false},
		{fmt.Errorf("get k: %w", memory.ErrNotFound), false},
		{fmt.Errorf("set: %w: bad key", memory.ErrInvalidKey), false},
		{fmt.Errorf("set: %w: ttl", memory.ErrInvalidArgument), false},
		{fmt.Errorf("set: %w", memory.ErrClosed), false},
		{fmt.Errorf("decode: %w", syntax), false},
		{fmt.Errorf("decode: %w", typ), false},
		{context.Canceled, false},
		{fmt.Errorf("set: %w", context.DeadlineExceeded), false},
		// A per-call timeout of the backend is its unavailability, not the caller's deadline.
		{fmt.Errorf("set: %w: %w", memory.ErrUnavailable, context.DeadlineExceeded), true},
	} {
		if got := memory.Transient(tc.err); got != tc.want {
			t.Errorf("Transient(%v) = %v, want %v", tc.err, got, tc.want)
		}
	}
}

// failing fails its first n calls with err, then succeeds.
type failing struct {
	n, calls int
	err      error
}

func (f *failing) op(context.Context) error {
	f.calls++
	if f.calls <= f.n {
		return f.err
	}
	return nil
}

func TestRetryRidesOutTransientFailures(t *testing.T) {
	f := &failing{n: 3, err: fmt.Errorf("get: %w", memory.ErrUnavailable)}
	var seen []memory.Failure
	err := memory.Retry(context.Background(), time.Minute, f.op, func(x memory.Failure) { seen = append(seen, x) })
	if err != nil {
		t.Fatalf("Retry = %v, want nil after 3 failures", err)
	}
	if f.calls != 4 || len(seen) != 3 {
		t.Fatalf("calls %d, failures seen %d; want 4 and 3", f.calls, len(seen))
	}
	for i, x := range seen {
		if x.Attempt != i+1 || !errors.Is(x.Err, memory.ErrUnavailable) || x.First() != (i == 0) {
			t.Errorf("failure %d = %+v", i, x)
		}
	}
	if seen[0].Waited != 0 || seen[2].Waited <= 0 {
		t.Errorf("waited: first %v, third %v", seen[0].Waited, seen[2].Waited)
	}
}

func TestRetryStopsAtOnceOnAPermanentError(t *testing.T) {
	for _, perm := range []error{memory.ErrNotFound, memory.ErrInvalidKey, memory.ErrClosed} {
		f := &failing{n: 100, err: fmt.Errorf("op: %w", perm)}
		err := memory.Retry(context.Background(), time.Minute, f.op, func(memory.Failure) { t.Errorf("%v: a permanent error was retried", perm) })
		if !errors.Is(err, perm) || f.calls != 1 {
			t.Errorf("Retry with %v = %v after %d calls, want it at once", perm, err, f.calls)
		}
	}
}

// Past the bound Retry gives up with the last error; the backoff keeps the
// number of attempts small (no spinning).
func TestRetryGivesUpPastTheBound(t *testing.T) {
	f := &failing{n: 1 << 30, err: fmt.Errorf("set: %w", memory.ErrUnavailable)}
	start := time.Now()
	err := memory.Retry(context.Background(), 400*time.Millisecond, f.op, nil)
	if !errors.Is(err, memory.ErrUnavailable) {
		t.Fatalf("Retry = %v, want the last ErrUnavailable", err)
	}
	if took := time.Since(start); took < 400*time.Millisecond {
		t.Errorf("gave up after %v, before the bound", took)
	}
	if f.calls < 2 || f.calls > 12 {
		t.Errorf("%d attempts in a 400ms bound: want a few (backoff from 50ms)", f.calls)
	}
}

func TestRetryEndsWithItsContext(t *testing.T) {
	ctx, cancel := context.WithCancelCause(context.Background())
	stop := errors.New("stopping")
	f := &failing{n: 1 << 30, err: fmt.Errorf("set: %w", memory.ErrUnavailable)}
	err := memory.Retry(ctx, 0, f.op, func(x memory.Failure) {
		if x.Attempt == 3 {
			cancel(stop)
		}
	})
	if !errors.Is(err, stop) || !errors.Is(err, memory.ErrUnavailable) || f.calls != 3 {
		t.Fatalf("Retry = %v after %d calls, want the cause and the last error after 3", err, f.calls)
	}
}
