// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package agent

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/a2abus/a2abus/bus"
	"github.com/a2abus/a2abus/bus/inproc"
	"github.com/a2abus/a2abus/internal/testenv"
	"github.com/a2abus/a2abus/pkg/a2a"
)

func TestLoadSigningKey(t *testing.T) {
	key := ed25519.NewKeyFromSeed(bytes.Repeat([]byte{5}, ed25519.SeedSize))
	priv, pub, err := a2a.MarshalKeyPair(key)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	write := func(name string, data []byte, mode os.FileMode) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, mode); err != nil {
			t.Fatal(err)
		}
		return p
	}
	got, err := LoadSigningKey(write("ok.key", priv, 0o600))
	if err != nil || !got.Equal(key) {
		t.Fatalf("LoadSigningKey: %v", err)
	}
	if _, err := LoadSigningKey(write("open.key", priv, 0o644)); err == nil || !strings.Contains(err.Error(), "readable by others") {
		t.Errorf("world-readable key: %v", err)
	}
	if _, err := LoadSigningKey(write("pub.key", pub, 0o600)); !errors.Is(err, a2a.ErrInvalidKey) {
		t.Errorf("public key as private: %v", err)
	}
	if _, err := LoadSigningKey(filepath.Join(dir, "missing.key")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
}

func TestNewRefusesATruncatedSigningKey(t *testing.T) {
	b := inproc.New(inproc.Options{})
	t.Cleanup(func() { _ = b.Close() })
	_, err := New(Options{Card: a2a.AgentCard{Name: "Signer"}, Bus: b, SigningKey: make(ed25519.PrivateKey, 10)})
	if !errors.Is(err, ErrInvalidOptions) || !strings.Contains(err.Error(), "SigningKey") {
		t.Fatalf("New: %v", err)
	}
}

func TestAnnouncementsAreSignedWithTheAgentsKey(t *testing.T) {
	h := newHarness(t)
	l := listenSigned(t, h)
	key := ed25519.NewKeyFromSeed(bytes.Repeat([]byte{6}, ed25519.SeedSize))
	a := h.agent(Options{Card: a2a.AgentCard{Name: "Signer"}, InstanceID: "s-1", SigningKey: key, AnnounceSecret: []byte("0123456789abcdef")},
		map[string]Handler{"echo": echo})
	h.start(a)
	env := l.next(t)
	signer, err := a2a.VerifyEd25519(env, env.Timestamp)
	if err != nil || !signer.Equal(key.Public()) {
		t.Fatalf("announcement's ed25519 signature: %v (signer %x)", err, signer)
	}
	if err := a2a.Verify(env, []byte("0123456789abcdef"), env.Timestamp); err != nil {
		t.Fatalf("the HMAC of the simple mode is kept beside it: %v", err)
	}
}

// signedListener collects the raw envelopes published on discovery.announce.
type signedListener struct{ got chan a2a.Envelope }

func listenSigned(t *testing.T, h *harness) *signedListener {
	t.Helper()
	b := h.broker.Connect()
	spec, err := bus.InstanceQueue("Directory", "signed", a2a.RoutingKeyAnnounce)
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Declare(context.Background(), spec); err != nil {
		t.Fatal(err)
	}
	l := &signedListener{got: make(chan a2a.Envelope, 16)}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = b.Consume(ctx, spec.Name, bus.ConsumeOptions{}, func(_ context.Context, d *bus.Delivery) error {
			select {
			case l.got <- d.Envelope:
			default:
			}
			return nil
		})
	}()
	t.Cleanup(func() { cancel(); <-done })
	return l
}

func (l *signedListener) next(t *testing.T) a2a.Envelope {
	t.Helper()
	select {
	case env := <-l.got:
		return env
	case <-time.After(testenv.WaitBound):
		t.Fatal("no announcement")
		return a2a.Envelope{}
	}
}
