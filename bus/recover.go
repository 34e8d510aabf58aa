// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package bus

import (
	"fmt"
	"runtime/debug"
)

// PanicError is the error Recover returns when f panicked. It wraps
// ErrPanicked only, never the panic value, even when that is an error.
type PanicError struct {
	// Value is what f passed to panic.
	Value any
	// Stack is the panicking goroutine's stack trace (runtime/debug.Stack).
	Stack []byte
}

// Error is "bus: handler panicked: <value>"; the stack is left out.
func (e *PanicError) Error() string { return fmt.Sprintf("%v: %v", ErrPanicked, e.Value) }

// Unwrap returns ErrPanicked.
func (e *PanicError) Unwrap() error { return ErrPanicked }

// Recover calls f and returns what it returns; when f panics it returns a
// *PanicError with the panic value and the stack instead. Transports run
// handlers under it so that a panic requeues the delivery like an error.
func Recover(f func() error) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = &PanicError{Value: p, Stack: debug.Stack()}
		}
	}()
	return f()
}
