// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package testenv

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// ReturnBound is how long Returns waits for a call by default. It tells a
// call that hangs from one that answers, so it is generous.
const ReturnBound = 10 * time.Second

// Returns runs f on its own goroutine and returns what f returns. When f
// has not returned after ReturnBound (or the Within bound; no other option
// applies) it fails tb naming what: a call that would hang, such as a read
// of a FIFO or of /dev/zero, fails the test instead of hanging it.
func Returns[T any](tb testing.TB, what string, f func() T, opts ...WaitOption) T {
	tb.Helper()
	c := waitConfig{bound: ReturnBound}
	for _, o := range opts {
		o(&c)
	}
	done := make(chan T, 1)
	go func() { done <- f() }()
	deadline := time.NewTimer(c.bound)
	defer deadline.Stop()
	select {
	case v := <-done:
		return v
	case <-deadline.C:
		tb.Fatal(what + " still running after " + c.bound.String())
		var zero T
		return zero
	}
}

// WantError reports whether err wraps target and its message contains each
// of parts (the path, the bound, what the file is). When not, it fails tb
// and goes on, naming the call what.
func WantError(tb testing.TB, what string, err, target error, parts ...string) bool {
	tb.Helper()
	if errors.Is(err, target) && containsAll(err.Error(), parts) {
		return true
	}
	tb.Errorf("%s: err = %v; want an error wrapping %q that names %q", what, err, target, parts)
	return false
}

// Refused runs f under Returns and checks its error with WantError: the
// check of every reader that must refuse at once, naming the path, a file
// that is not regular or is past its bound.
func Refused(tb testing.TB, what string, f func() error, target error, parts ...string) bool {
	tb.Helper()
	return WantError(tb, what, Returns(tb, what, f), target, parts...)
}

func containsAll(s string, parts []string) bool {
	for _, p := range parts {
		if !strings.Contains(s, p) {
			return false
		}
	}
	return true
}
