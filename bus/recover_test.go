// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package bus

import (
	"errors"
	"strings"
	"testing"
)

// panicsWith panics with v; its name must show in the recovered stack.
func panicsWith(v any) error { panic(v) }

func TestRecoverPanic(t *testing.T) {
	boom := errors.New("boom")
	for _, tc := range []struct {
		v    any
		text string
	}{
		{"kaboom", "bus: handler panicked: kaboom"},
		{42, "bus: handler panicked: 42"},
		{boom, "bus: handler panicked: boom"},
	} {
		v := tc.v
		err := Recover(func() error { return panicsWith(v) })
		if !errors.Is(err, ErrPanicked) {
			t.Fatalf("panic(%v): err = %v, want one wrapping ErrPanicked", v, err)
		}
		pe, ok := errors.AsType[*PanicError](err)
		if !ok {
			t.Fatalf("panic(%v): err = %T, want *PanicError", v, err)
		}
		if pe.Value != v {
			t.Errorf("Value = %v, want %v", pe.Value, v)
		}
		if !strings.Contains(string(pe.Stack), "panicsWith") {
			t.Errorf("stack does not name the panicking function:\n%s", pe.Stack)
		}
		if err.Error() != tc.text {
			t.Errorf("Error() = %q, want %q", err.Error(), tc.text)
		}
	}
	// An error passed to panic is reported, not unwrapped: the caller cannot
	// mistake a panic for the error a handler returns.
	if err := Recover(func() error { return panicsWith(boom) }); errors.Is(err, boom) {
		t.Errorf("err %v unwraps to the panic value", err)
	}
}

func TestRecoverReturnsWhatFReturns(t *testing.T) {
	if err := Recover(func() error { return nil }); err != nil {
		t.Fatalf("f returned nil, Recover returned %v", err)
	}
	want := errors.New("disk full")
	if err := Recover(func() error { return want }); err != want {
		t.Fatalf("f returned %v, Recover returned %v", want, err)
	}
}

func TestRecoverNilFunc(t *testing.T) {
	if err := Recover(nil); !errors.Is(err, ErrPanicked) {
		t.Fatalf("Recover(nil) = %v, want one wrapping ErrPanicked", err)
	}
}
