// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package a2a

import (
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"strings"
	"time"
)

// DefaultMaxBodyBytes is the default limit on a message body: 4 MiB.
const DefaultMaxBodyBytes = 4 << 20

// Codec turns payloads into envelopes and back. The zero value is ready to
// use: 4 MiB limit, the wall clock and random UUIDs.
type Codec struct {
	// MaxBodyBytes rejects larger bodies on encode and decode; 0 means DefaultMaxBodyBytes.
	MaxBodyBytes int
	// Now returns the current time; nil means time.Now.
	Now func() time.Time
	// NewID returns a unique message id; nil means a random UUID.
	NewID func() string
}

func (c Codec) limit() int {
	if c.MaxBodyBytes > 0 {
		return c.MaxBodyBytes
	}
	return DefaultMaxBodyBytes
}

func (c Codec) now() time.Time {
	if c.Now != nil {
		return c.Now()
	}
	return time.Now()
}

func (c Codec) newID() string {
	if c.NewID != nil {
		return c.NewID()
	}
	return NewID()
}

// Encode validates p and builds its envelope: a new message id, the task id
// as correlation id, and for requests reply_to, priority and the expiration
// left to the time it may be taken by (StartBy, else the deadline). A
// request that could no longer be taken is refused.
func (c Codec) Encode(p Payload, trace Trace) (Envelope, error) {
	if p == nil {
		return Envelope{}, fmt.Errorf("a2a: encode: %w: payload is nil", ErrMissingField)
	}
	kind := p.Kind()
	if err := p.Validate(); err != nil {
		return Envelope{}, fmt.Errorf("a2a: encode %s: %w", kind, err)
	}
	body, err := marshalPayload(p)
	if err != nil {
		return Envelope{}, fmt.Errorf("a2a: encode %s: %w: %v", kind, ErrMalformed, err)
	}
	if len(body) > c.limit() {
		return Envelope{}, fmt.Errorf("a2a: encode %s: %w: body of %d bytes exceeds the limit of %d bytes", kind, ErrTooLarge, len(body), c.limit())
	}
	now := c.now()
	env := Envelope{
		Kind:          kind,
		MessageID:     c.newID(),
		CorrelationID: p.taskID(),
		ContentType:   ContentTypeJSON,
		Timestamp:     now,
		Headers:       map[string]string{HeaderVersion: ProtocolVersion},
		Body:          body,
	}
	if trace.Valid() {
		env.Headers[HeaderTraceParent] = trace.Parent
		if trace.State != "" {
			env.Headers[HeaderTraceState] = trace.State
		}
	}
	if req, ok := p.(*TaskRequest); ok {
		// The message expires in its queue when it may no longer be taken.
		field, by := "deadline", req.Deadline
		if !req.StartBy.IsZero() {
			field, by = "startBy", req.StartBy
		}
		left := by.Sub(now)
		if left <= 0 {
			return Envelope{}, fmt.Errorf("a2a: encode %s: %w", kind, fieldErr(field, ErrInvalidField,
				fmt.Sprintf("%s %s has already passed", field, by.Format(time.RFC3339Nano))))
		}
		env.ReplyTo, _ = ResponseRoutingKey(req.Caller) // validated above
		env.Priority = req.Priority.AMQP()
		env.Expiration = max(left.Round(time.Millisecond), time.Millisecond)
	}
	return env, nil
}

// Decode checks the envelope (size, kind, content type, version) and decodes
// and validates its body. Every failure is a *DecodeError naming the kind,
// the message id and the field or limit, wrapping ErrTooLarge,
// ErrUnknownKind, ErrMalformed, ErrMissingField or ErrInvalidField.
func (c Codec) Decode(env Envelope) (Payload, error) {
	p, err := c.decode(env)
	if err != nil {
		return nil, &DecodeError{Kind: string(env.Kind), MessageID: env.MessageID, Err: err}
	}
	return p, nil
}

func (c Codec) decode(env Envelope) (Payload, error) {
	if len(env.Body) > c.limit() {
		return nil, fmt.Errorf("%w: body of %d bytes exceeds the limit of %d bytes", ErrTooLarge, len(env.Body), c.limit())
	}
	kind, err := ParseKind(string(env.Kind))
	if err != nil {
		return nil, err
	}
	if err := checkContentType(env.ContentType); err != nil {
		return nil, err
	}
	if v, ok := env.Headers[HeaderVersion]; ok && v != "1" && !strings.HasPrefix(v, "1.") {
		return nil, fieldErr("header "+HeaderVersion, ErrInvalidField, fmt.Sprintf("unsupported protocol version %q, want 1.x", v))
	}
	if len(env.Body) == 0 {
		return nil, fmt.Errorf("%w: empty body", ErrMalformed)
	}
	p, err := unmarshalPayload(kind, env.Body)
	if err != nil {
		return nil, jsonErr(err)
	}
	if err := p.Validate(); err != nil {
		return nil, err
	}
	if env.CorrelationID != "" && p.taskID() != "" && env.CorrelationID != p.taskID() {
		return nil, fieldErr("taskId", ErrInvalidField,
			fmt.Sprintf("task id %q does not match correlation id %q", p.taskID(), env.CorrelationID))
	}
	return p, nil
}

func checkContentType(ct string) error {
	if ct == "" || ct == ContentTypeJSON {
		return nil
	}
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil || mt != ContentTypeJSON {
		return fieldErr("content_type", ErrInvalidField, fmt.Sprintf("must be %s, got %q", ContentTypeJSON, ct))
	}
	return nil
}

// jsonErr names the offset of a syntax error or the field of a type error.
func jsonErr(err error) error {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		return fmt.Errorf("%w: invalid JSON at byte %d: %v", ErrMalformed, syn.Offset, err)
	case errors.As(err, &typ) && typ.Field != "":
		return fieldErr(typ.Field, ErrInvalidField, fmt.Sprintf("want %s, got JSON %s", typ.Type, typ.Value))
	}
	return fmt.Errorf("%w: %v", ErrMalformed, err)
}
