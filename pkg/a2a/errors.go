// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package a2a

import (
	"errors"
	"fmt"
)

// Sentinel errors of the wire protocol; decode errors wrap them in *DecodeError.
var (
	// ErrInvalidName: an agent name, instance id or other identifier is malformed.
	ErrInvalidName = errors.New("a2a: invalid name")
	// ErrUnknownKind: the message type is not one of the known kinds.
	ErrUnknownKind = errors.New("a2a: unknown message kind")
	// ErrMalformed: the body is not valid JSON for its kind.
	ErrMalformed = errors.New("a2a: malformed message")
	// ErrMissingField: a required field is absent or empty.
	ErrMissingField = errors.New("a2a: missing field")
	// ErrInvalidField: a field has a value outside its domain.
	ErrInvalidField = errors.New("a2a: invalid field")
	// ErrTooLarge: the body exceeds the configured limit.
	ErrTooLarge = errors.New("a2a: message too large")
)

// FieldError names the field of a payload that is missing or wrong. It wraps
// ErrMissingField or ErrInvalidField.
type FieldError struct {
	Field  string // JSON path, e.g. "message.parts[0]"
	Reason string
	Err    error
}

// Error formats the field and the reason.
func (e *FieldError) Error() string {
	return fmt.Sprintf("field %q: %s (%v)", e.Field, e.Reason, e.Err)
}

// Unwrap returns the sentinel.
func (e *FieldError) Unwrap() error { return e.Err }

func fieldErr(field string, sentinel error, reason string) error {
	return &FieldError{Field: field, Reason: reason, Err: sentinel}
}

// nameErr turns a name-validation error into a FieldError for field.
func nameErr(field string, err error) error {
	if err == nil {
		return nil
	}
	return &FieldError{Field: field, Reason: err.Error(), Err: ErrInvalidField}
}

// DecodeError is any failure to decode an envelope: it names the kind, the
// message id and wraps the cause (a *FieldError or a sentinel).
type DecodeError struct {
	Kind      string
	MessageID string
	Err       error
}

// Error formats what was decoded and why it failed.
func (e *DecodeError) Error() string {
	return fmt.Sprintf("a2a: decode %s message %q: %v", e.Kind, e.MessageID, e.Err)
}

// Unwrap returns the cause.
func (e *DecodeError) Unwrap() error { return e.Err }
