// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package a2a

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"
	"time"
)

// decodeSentinels are the causes a *DecodeError may wrap.
var decodeSentinels = []error{ErrTooLarge, ErrUnknownKind, ErrMalformed, ErrMissingField, ErrInvalidField}

// FuzzDecode feeds arbitrary kinds and bodies to the decoder, as a consumer
// receives them from the bus. It must never panic. A refusal is a
// *DecodeError naming the kind and the message id and wrapping one of the
// package's sentinels. A decoded payload has the envelope's kind, passes
// Validate, is accepted by the codec's own Encode (what one side decodes,
// the other can send), and the envelope Encode builds decodes back to a
// payload that encodes to the same body: one round trip reaches a fixed
// point. The seed corpus is every kind's sample payload plus
// testdata/fuzz/FuzzDecode.
func FuzzDecode(f *testing.F) {
	addSeeds(f, wirePayloads())
	for kind, body := range scanSeeds {
		f.Add(string(kind), []byte(body))
	}
	for kind, bodies := range turnSeeds {
		for _, body := range bodies {
			f.Add(string(kind), []byte(body))
		}
	}
	c := Codec{MaxBodyBytes: 64 << 10}
	f.Fuzz(func(t *testing.T, kind string, body []byte) {
		env := Envelope{Kind: Kind(kind), MessageID: "m", Body: body}
		p, err := c.Decode(env)
		if err != nil {
			checkDecodeError(t, err, kind, "m")
			return
		}
		if p.Kind() != Kind(kind) {
			t.Fatalf("decoded kind %q from %q", p.Kind(), kind)
		}
		if err := p.Validate(); err != nil {
			t.Fatalf("Decode returned a payload that fails Validate: %v\nbody %s", err, body)
		}
		env1, p1 := reencode(t, p)
		env2, _ := reencode(t, p1)
		if !bytes.Equal(env1.Body, env2.Body) {
			t.Fatalf("round trip not stable:\n%s\n%s", env1.Body, env2.Body)
		}
		// The codec's writer and encoding/json agree on the decoded payload.
		std, err := json.Marshal(p)
		if err != nil {
			t.Fatalf("json.Marshal of a decoded payload: %v", err)
		}
		if !sameJSON(std, env1.Body) {
			t.Fatalf("Encode and json.Marshal differ on a decoded payload:\n%s\n%s", env1.Body, std)
		}
	})
}

// checkDecodeError checks err is a *DecodeError for kind and id wrapping a sentinel.
func checkDecodeError(t *testing.T, err error, kind, id string) {
	t.Helper()
	var de *DecodeError
	if !errors.As(err, &de) {
		t.Fatalf("error %v is not a *DecodeError", err)
	}
	if de.Kind != kind || de.MessageID != id {
		t.Fatalf("DecodeError names kind %q message %q, want %q %q", de.Kind, de.MessageID, kind, id)
	}
	for _, s := range decodeSentinels {
		if errors.Is(err, s) {
			return
		}
	}
	t.Fatalf("error %v wraps none of the package's sentinels", err)
}

// reencode encodes p with the codec (its clock set before a request's
// deadline, so that Encode takes it), checks the envelope, and decodes it.
func reencode(t *testing.T, p Payload) (Envelope, Payload) {
	t.Helper()
	now := testNow
	if r, ok := p.(*TaskRequest); ok {
		now = r.Deadline.Add(-time.Minute)
	}
	c := Codec{Now: func() time.Time { return now }, NewID: func() string { return "re" }}
	env, err := c.Encode(p, Trace{})
	if err != nil {
		t.Fatalf("Encode refused a payload Decode accepted: %v\npayload %#v", err, p)
	}
	if env.Kind != p.Kind() || env.CorrelationID != p.taskID() || env.ContentType != ContentTypeJSON {
		t.Fatalf("Encode built envelope kind %q correlation %q content type %q for %s %q",
			env.Kind, env.CorrelationID, env.ContentType, p.Kind(), p.taskID())
	}
	back, err := c.Decode(env)
	if err != nil {
		t.Fatalf("decode of a re-encoded payload failed: %v\nbody %s", err, env.Body)
	}
	return env, back
}

// sameJSON reports whether a and b hold the same JSON value (key order aside).
func sameJSON(a, b []byte) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	xa, _ := json.Marshal(x)
	ya, _ := json.Marshal(y)
	return bytes.Equal(xa, ya)
}

// addSeeds adds each payload's kind and JSON to f's seed corpus.
func addSeeds(f *testing.F, payloads []Payload) {
	for _, p := range payloads {
		b, err := json.Marshal(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(p.Kind()), b)
	}
}
