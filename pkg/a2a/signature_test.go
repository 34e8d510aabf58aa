// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package a2a

import (
	"errors"
	"testing"
	"time"
)

func TestSignAndVerify(t *testing.T) {
	c := testCodec()
	env, err := c.Encode(&Announcement{Card: &AgentCard{Name: "A"}, InstanceID: "i", Time: testNow}, Trace{})
	if err != nil {
		t.Fatal(err)
	}
	secret := []byte("0123456789abcdef")
	if err := Verify(env, secret, testNow); !errors.Is(err, ErrBadSignature) {
		t.Fatalf("unsigned: %v", err)
	}
	Sign(&env, secret)
	if err := Verify(env, secret, testNow.Add(time.Minute)); err != nil {
		t.Fatalf("signed: %v", err)
	}
	// The timestamp travels at second precision: a transport dropping the rest changes nothing.
	env.Timestamp = env.Timestamp.Truncate(time.Second)
	if err := Verify(env, secret, testNow); err != nil {
		t.Fatalf("truncated timestamp: %v", err)
	}
	cases := map[string]func(e *Envelope){
		"other secret": func(e *Envelope) { Sign(e, []byte("another secret!!")) },
		"changed body": func(e *Envelope) { e.Body = append([]byte(nil), e.Body...); e.Body[2] ^= 1 },
		"changed id":   func(e *Envelope) { e.MessageID = "other" },
		"garbage":      func(e *Envelope) { e.Headers = map[string]string{HeaderSignature: "zz"} },
	}
	for name, mutate := range cases {
		e := env
		e.Headers = map[string]string{HeaderSignature: env.Headers[HeaderSignature]}
		mutate(&e)
		if err := Verify(e, secret, testNow); !errors.Is(err, ErrBadSignature) {
			t.Errorf("%s: %v", name, err)
		}
	}
	if err := Verify(env, secret, testNow.Add(MaxSignatureAge+time.Minute)); !errors.Is(err, ErrBadSignature) {
		t.Errorf("replayed late: %v", err)
	}
}
