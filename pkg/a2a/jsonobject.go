// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package a2a

import (
	"encoding/json"
	"strconv"
	"sync"
	"time"
)

// ObjectWriter writes one JSON object member by member, each member as
// encoding/json writes a struct field of that type and tag (HTML escaping
// on): the hand-written writer of the wire payloads (wireenc.go), for the
// records other packages store on every call (the caller's task record,
// stored result and call history entry). Members are written in the order
// the methods are called; it is for the caller to follow the struct's
// field order, omitempty and omitzero. Where encoding/json would fail (a
// time it cannot write as RFC 3339, NaN or an infinity, a raw value that
// is not JSON, a value it cannot encode) the writer gives up: Done then
// reports false and the caller encodes the value the standard way.
//
// The zero value is ready. It writes into a scratch buffer it reuses (a
// pool, as encoding/json's), and Done returns a copy of exactly the
// object's size: what is stored holds no spare room.
type ObjectWriter struct {
	w       jsonWriter
	scratch *[]byte // the pooled buffer w.b came from
}

// objectBuffers are the scratch buffers of ObjectWriters.
var objectBuffers = sync.Pool{New: func() any { b := make([]byte, 0, 1024); return &b }}

// maxPooledBuffer bounds a scratch buffer kept for reuse.
const maxPooledBuffer = 64 << 10

// Open starts the object.
func (o *ObjectWriter) Open() {
	if o.scratch == nil {
		o.scratch = objectBuffers.Get().(*[]byte)
		o.w.b = (*o.scratch)[:0]
	}
	o.w.b = append(o.w.b, '{')
}

// Done ends the object and returns its bytes, a copy of exactly its size;
// false when the writer gave up on a value encoding/json would refuse.
// The writer is then empty again.
func (o *ObjectWriter) Done() ([]byte, bool) {
	o.w.b = append(o.w.b, '}')
	out, ok := make([]byte, len(o.w.b)), !o.w.failed
	copy(out, o.w.b)
	if o.scratch != nil && cap(o.w.b) <= maxPooledBuffer {
		*o.scratch = o.w.b[:0]
		objectBuffers.Put(o.scratch)
	}
	o.scratch, o.w = nil, jsonWriter{}
	return out, ok
}

// Key writes a member's key (plain ASCII, as a struct tag's name), after a
// comma unless it is the object's first: the value follows (RawValue).
func (o *ObjectWriter) Key(k string) { o.w.key(k) }

// RawValue appends b, a JSON value already encoded as encoding/json would, after a Key.
func (o *ObjectWriter) RawValue(b []byte) { o.w.b = append(o.w.b, b...) }

// String writes a string member.
func (o *ObjectWriter) String(k, s string) { o.w.str(k, s) }

// StringOmit writes a string member unless it is empty (omitempty).
func (o *ObjectWriter) StringOmit(k, s string) { o.w.strOmit(k, s) }

// Int writes an integer member.
func (o *ObjectWriter) Int(k string, n int64) {
	o.w.key(k)
	o.w.b = strconv.AppendInt(o.w.b, n, 10)
}

// IntOmit writes an integer member unless it is 0 (omitempty).
func (o *ObjectWriter) IntOmit(k string, n int64) { o.w.intOmit(k, n) }

// Bool writes a boolean member.
func (o *ObjectWriter) Bool(k string, b bool) {
	o.w.key(k)
	o.w.boolean(b)
}

// BoolOmit writes a boolean member unless it is false (omitempty).
func (o *ObjectWriter) BoolOmit(k string, b bool) {
	if b {
		o.Bool(k, b)
	}
}

// BoolPtrOmit writes a *bool member unless it is nil (omitempty).
func (o *ObjectWriter) BoolPtrOmit(k string, b *bool) {
	if b != nil {
		o.Bool(k, *b)
	}
}

// Time writes a time member as Time.MarshalJSON does.
func (o *ObjectWriter) Time(k string, t time.Time) { o.w.time(k, t) }

// TimeOmitZero writes a time member unless it is the zero time (omitzero).
func (o *ObjectWriter) TimeOmitZero(k string, t time.Time) {
	if !t.IsZero() {
		o.w.time(k, t)
	}
}

// Strings writes a list of strings (nil as null).
func (o *ObjectWriter) Strings(k string, ss []string) {
	o.w.key(k)
	o.w.strings(ss)
}

// StringsOmit writes a list of strings unless it is empty (omitempty).
func (o *ObjectWriter) StringsOmit(k string, ss []string) { o.w.stringsOmit(k, ss) }

// StringsOmitZero writes a list of strings unless it is nil (omitzero).
func (o *ObjectWriter) StringsOmitZero(k string, ss []string) {
	if ss != nil {
		o.Strings(k, ss)
	}
}

// RawOmit writes a json.RawMessage member unless it is empty (omitempty),
// compacted and escaped as encoding/json writes it.
func (o *ObjectWriter) RawOmit(k string, m json.RawMessage) { o.w.raw(k, m) }

// ObjectOmit writes a map member unless it is empty (omitempty), its keys
// sorted.
func (o *ObjectWriter) ObjectOmit(k string, m map[string]any) { o.w.objectOmit(k, m) }

// MessageOmit writes m as encoding/json writes MessageMirror(m), unless m
// is nil (omitempty).
func (o *ObjectWriter) MessageOmit(k string, m *Message) {
	if m != nil {
		o.w.key(k)
		o.w.message(m)
	}
}

// MessagesOmit writes ms as encoding/json writes MessagesMirror(ms),
// unless ms is empty (omitempty).
func (o *ObjectWriter) MessagesOmit(k string, ms []*Message) { o.w.messagesOmit(k, ms) }

// ArtifactsOmit writes as as encoding/json writes ArtifactsMirror(as),
// unless as is empty (omitempty).
func (o *ObjectWriter) ArtifactsOmit(k string, as []*Artifact) {
	if len(as) > 0 {
		o.w.key(k)
		list(&o.w, as, o.w.artifact)
	}
}

// QuestionOmit writes q unless it is nil (omitempty).
func (o *ObjectWriter) QuestionOmit(k string, q *Question) {
	if q != nil {
		o.w.key(k)
		o.w.question(q)
	}
}

// CallerContextOmit writes c unless it is nil (omitempty).
func (o *ObjectWriter) CallerContextOmit(k string, c *CallerContext) {
	if c != nil {
		o.w.key(k)
		o.w.callerContext(c)
	}
}

// ErrorOmit writes e unless it is nil (omitempty).
func (o *ObjectWriter) ErrorOmit(k string, e *Error) {
	if e == nil {
		return
	}
	o.w.key(k)
	o.w.b = append(o.w.b, '{')
	o.w.str("code", string(e.Code))
	o.w.str("message", e.Message)
	o.Bool("retryable", e.Retryable)
	o.w.b = append(o.w.b, '}')
}

// ResultMetadata writes a result's metadata (always: it is a struct).
func (o *ObjectWriter) ResultMetadata(k string, m ResultMetadata) {
	o.w.key(k)
	o.w.b = append(o.w.b, '{')
	o.w.intOmit("processingTimeMs", m.ProcessingTimeMs)
	o.w.strOmit("agentVersion", m.AgentVersion)
	o.w.intOmit("tokensUsed", m.TokensUsed)
	o.w.objectOmit("extra", m.Extra)
	o.w.b = append(o.w.b, '}')
}
