// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package a2a

import (
	"bytes"
	"crypto/ed25519"
	"errors"
	"maps"
	"strings"
	"testing"
	"time"
)

// testKey is a deterministic ed25519 key from a seed of n repeated.
func testKey(n byte) ed25519.PrivateKey {
	return ed25519.NewKeyFromSeed(bytes.Repeat([]byte{n}, ed25519.SeedSize))
}

func TestSignAndVerifyEd25519(t *testing.T) {
	c := testCodec()
	env, err := c.Encode(&Announcement{Card: &AgentCard{Name: "A"}, InstanceID: "i", Time: testNow}, Trace{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := VerifyEd25519(env, testNow); !errors.Is(err, ErrNotSigned) || errors.Is(err, ErrBadSignature) {
		t.Fatalf("unsigned: %v, want ErrNotSigned only", err)
	}
	key := testKey(1)
	SignEd25519(&env, key)
	pub, err := VerifyEd25519(env, testNow.Add(time.Minute))
	if err != nil {
		t.Fatalf("signed: %v", err)
	}
	if !pub.Equal(key.Public()) {
		t.Fatalf("signer key %x, want %x", pub, key.Public())
	}
	if !strings.HasPrefix(env.Headers[HeaderSignatureEd25519], "v1:") {
		t.Errorf("signature header %q lacks its version", env.Headers[HeaderSignatureEd25519])
	}
	env.Timestamp = env.Timestamp.Truncate(time.Second)
	if _, err := VerifyEd25519(env, testNow); err != nil {
		t.Fatalf("truncated timestamp: %v", err)
	}
	other := EncodePublicKey(testKey(2).Public().(ed25519.PublicKey))
	cases := map[string]func(e *Envelope){
		"other key named": func(e *Envelope) { e.Headers[HeaderSignerKey] = other },
		"signed by another": func(e *Envelope) {
			SignEd25519(e, testKey(2))
			e.Headers[HeaderSignerKey] = EncodePublicKey(key.Public().(ed25519.PublicKey))
		},
		"changed body":    func(e *Envelope) { e.Body = append([]byte(nil), e.Body...); e.Body[2] ^= 1 },
		"changed id":      func(e *Envelope) { e.MessageID = "other" },
		"changed kind":    func(e *Envelope) { e.Kind = KindDiscoveryQuery },
		"unknown version": func(e *Envelope) { e.Headers[HeaderSignatureEd25519] = "v2" + e.Headers[HeaderSignatureEd25519][2:] },
		"garbage":         func(e *Envelope) { e.Headers[HeaderSignatureEd25519] = "v1:zz" },
		"no key":          func(e *Envelope) { delete(e.Headers, HeaderSignerKey) },
		"short key":       func(e *Envelope) { e.Headers[HeaderSignerKey] = "AAAA" },
	}
	for name, mutate := range cases {
		e := env
		e.Headers = maps.Clone(env.Headers)
		mutate(&e)
		if _, err := VerifyEd25519(e, testNow); !errors.Is(err, ErrBadSignature) {
			t.Errorf("%s: %v, want ErrBadSignature", name, err)
		}
	}
	if _, err := VerifyEd25519(env, testNow.Add(MaxSignatureAge+time.Minute)); !errors.Is(err, ErrBadSignature) {
		t.Errorf("replayed late: %v", err)
	}
}

// TestEd25519Vector pins the signed bytes: a change to them breaks every
// other implementation of the wire format.
func TestEd25519Vector(t *testing.T) {
	env := Envelope{Kind: KindAgentCard, MessageID: "m1", Timestamp: time.Unix(1735700000, 0), Body: []byte(`{"x":1}`)}
	SignEd25519(&env, testKey(7))
	const wantKey = "6kpsY+KcUgq+9VB7Ey7F+ZVHdq6+vnuSQh7qaRRG0iw="
	if got := env.Headers[HeaderSignerKey]; got != wantKey {
		t.Errorf("signer key %s, want %s", got, wantKey)
	}
	const wantSig = "v1:l1ipXKDLEQFRgLP7izVXoaVIegbM/zRFAfd3G877HtP2pNI8qCg9Qu8cttLHVd2W4vOL2KJzk92f9OwE6ui1Ag=="
	if got := env.Headers[HeaderSignatureEd25519]; got != wantSig {
		t.Errorf("signature %s, want %s", got, wantSig)
	}
	want := "a2a-ed25519-v1\nagent.card\nm1\n1735700000\n" + wantKey + "\n{\"x\":1}"
	if got := string(signedBytes(env, wantKey)); got != want {
		t.Errorf("signed bytes %q, want %q", got, want)
	}
}

func TestParseKeys(t *testing.T) {
	key := testKey(3)
	priv, pub, err := MarshalKeyPair(key)
	if err != nil {
		t.Fatal(err)
	}
	back, err := ParsePrivateKeyPEM(priv)
	if err != nil || !back.Equal(key) {
		t.Fatalf("private key round trip: %v", err)
	}
	for name, text := range map[string]string{"pem": string(pub), "base64": EncodePublicKey(key.Public().(ed25519.PublicKey))} {
		p, err := ParsePublicKey(text)
		if err != nil || !p.Equal(key.Public()) {
			t.Errorf("%s public key: %v", name, err)
		}
	}
	for name, text := range map[string]string{"empty": "", "not base64": "!!", "short": "AAAA", "private as public": string(priv)} {
		if _, err := ParsePublicKey(text); !errors.Is(err, ErrInvalidKey) {
			t.Errorf("%s: %v, want ErrInvalidKey", name, err)
		}
	}
	if _, err := ParsePrivateKeyPEM(pub); !errors.Is(err, ErrInvalidKey) {
		t.Errorf("public as private: %v", err)
	}
}
