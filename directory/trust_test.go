// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package directory

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/a2abus/a2abus/bus"
	"github.com/a2abus/a2abus/internal/testenv"
	"github.com/a2abus/a2abus/internal/testworld"
	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/agent"
)

// key is a deterministic test key.
func key(n byte) ed25519.PrivateKey {
	return ed25519.NewKeyFromSeed(bytes.Repeat([]byte{n}, ed25519.SeedSize))
}

func pubText(k ed25519.PrivateKey) string { return a2a.EncodePublicKey(k.Public().(ed25519.PublicKey)) }

// signedAgent is a fake agent of name on b signing with k (nil: unsigned).
func signedAgent(b bus.Bus, name string, k ed25519.PrivateKey) *fakeAgent {
	f := newFakeAgent(b, name, "work")
	f.key = k
	return f
}

// barrier announces a new control agent on b and waits until d lists it:
// the directory consumes in order, so every announcement published on b
// before it has been handled.
var barriers atomic.Int64

func barrier(t *testing.T, d *Directory, b bus.Bus) {
	t.Helper()
	name := fmt.Sprintf("Ctl%d", barriers.Add(1))
	newFakeAgent(b, name, "x").mustAnnounce(t, false)
	waitFor(t, d, name+" online", hasStatus(d, name, StatusOnline))
}

// TestPinnedKeyRefusesCardsAndDeregistrationsSignedOtherwise: a name whose
// key the well-known file pins is listed only from cards signed by that
// key, and deregistered only by them.
func TestPinnedKeyRefusesCardsAndDeregistrationsSignedOtherwise(t *testing.T) {
	t.Parallel()
	testworld.EachBus(t, func(t *testing.T, w *testworld.World) {
		log, logs := observed()
		wk := wellKnown("Billing", "work")
		wk.PublicKey = pubText(key(1))
		b := w.Connect(t)
		d := newDirectory(t, Options{Bus: b, WellKnown: []WellKnownAgent{wk}, Logger: log})
		start(t, d)

		signedAgent(b, "Billing", key(2)).mustAnnounce(t, false) // another key
		signedAgent(b, "billing", nil).mustAnnounce(t, false)    // unsigned, another spelling
		barrier(t, d, b)
		if e, _ := d.Lookup("Billing"); e.Status != StatusWellKnown || len(e.Instances) != 0 {
			t.Fatalf("cards not signed by the pinned key were accepted: %s, %d instances", e.Status, len(e.Instances))
		}
		refusals := warnings(logs, "announcement refused: not signed by the agent's pinned key")
		if len(refusals) == 0 || !strings.Contains(fmt.Sprint(refusals[0]["reason"]), "signed with key "+pubText(key(2))[:12]) {
			t.Fatalf("refusal not logged with its reason: %v", refusals)
		}

		real := signedAgent(b, "Billing", key(1))
		real.mustAnnounce(t, false)
		waitFor(t, d, "Billing online from its signed card", hasStatus(d, "Billing", StatusOnline))

		// A deregistration of the real instance, forged: another key, then none.
		forged := signedAgent(b, "Billing", key(2))
		forged.id = real.id
		forged.mustAnnounce(t, true)
		unsigned := signedAgent(b, "Billing", nil)
		unsigned.id = real.id
		unsigned.mustAnnounce(t, true)
		barrier(t, d, b)
		if e, _ := d.Lookup("Billing"); e.Status != StatusOnline || len(e.Instances) != 1 {
			t.Fatalf("a forged deregistration was accepted: %s, %d instances", e.Status, len(e.Instances))
		}
		real.mustAnnounce(t, true)
		waitFor(t, d, "Billing offline after its own deregistration", hasStatus(d, "Billing", StatusOffline))
	})
}

// TestTrustOnFirstUse: the first signed card of a name pins its key in the
// pins file; later cards signed otherwise (or unsigned) are refused, also
// by a directory started later on the same file.
func TestTrustOnFirstUse(t *testing.T) {
	t.Parallel()
	testworld.EachBus(t, func(t *testing.T, w *testworld.World) {
		pins := filepath.Join(t.TempDir(), "pins.json")
		b := w.Connect(t)
		d := newDirectory(t, Options{Bus: b, Trust: TrustTOFU, PinsFile: pins})
		start(t, d)

		first := signedAgent(b, "Ledger", key(3))
		first.mustAnnounce(t, false)
		waitFor(t, d, "Ledger online", hasStatus(d, "Ledger", StatusOnline))
		if k, ok := d.PinnedKey("ledger"); !ok || !k.Equal(key(3).Public()) {
			t.Fatalf("key not pinned on first use: %v %x", ok, k)
		}
		data, err := os.ReadFile(pins)
		if err != nil || !strings.Contains(string(data), pubText(key(3))) {
			t.Fatalf("pins file: %v\n%s", err, data)
		}

		signedAgent(b, "Ledger", key(4)).mustAnnounce(t, false)
		signedAgent(b, "Ledger", nil).mustAnnounce(t, false)
		barrier(t, d, b)
		if e, _ := d.Lookup("Ledger"); len(e.Instances) != 1 {
			t.Fatalf("cards not signed by the key pinned on first use were accepted: %d instances", len(e.Instances))
		}

		// A later directory on the same pins file refuses the other key at once.
		b2 := w.Connect(t)
		d2 := newDirectory(t, Options{Bus: b2, Trust: TrustTOFU, PinsFile: pins})
		start(t, d2)
		<-d2.bound // its queue gets the announcements from here on (d's is bound already)
		signedAgent(b2, "Ledger", key(4)).mustAnnounce(t, false)
		barrier(t, d2, b2)
		if e, ok := d2.Lookup("Ledger"); ok && len(e.Instances) != 0 {
			t.Fatalf("the restarted directory accepted another key: %+v", e)
		}
		first.bus = b2
		first.mustAnnounce(t, false)
		waitFor(t, d2, "Ledger online on the restarted directory", hasStatus(d2, "Ledger", StatusOnline))
	})
}

// TestPinnedModeAcceptsUnpinnedNamesAndTrustAnyIgnoresKeys: pinning only
// touches pinned names; a bad signature is refused whatever the name; the
// migration mode ignores keys.
func TestPinnedModeAcceptsUnpinnedNamesAndTrustAnyIgnoresKeys(t *testing.T) {
	b := embeddedBus(t)
	wk := wellKnown("Billing", "work")
	wk.PublicKey = pubText(key(1))
	d := newDirectory(t, Options{Bus: b, WellKnown: []WellKnownAgent{wk}})
	start(t, d)
	signedAgent(b, "Free", nil).mustAnnounce(t, false)
	signedAgent(b, "Signed", key(5)).mustAnnounce(t, false)
	waitFor(t, d, "unpinned agents online", func() bool {
		return hasStatus(d, "Free", StatusOnline)() && hasStatus(d, "Signed", StatusOnline)()
	})
	if _, ok := d.PinnedKey("Signed"); ok {
		t.Error("pinned mode pinned a key on first use")
	}
	// A signature that does not verify (its key header replaced) is refused.
	bad := signedAgent(b, "Tampered", key(5))
	publishRouted(t, func(ctx context.Context) error {
		env, err := a2a.Codec{}.Encode(&a2a.Announcement{Card: bad.card, InstanceID: bad.id, Time: time.Now()}, a2a.Trace{})
		if err != nil {
			return err
		}
		a2a.SignEd25519(&env, key(5))
		env.Headers[a2a.HeaderSignerKey] = pubText(key(6))
		return b.Publish(ctx, bus.Message{Envelope: env, RoutingKey: a2a.RoutingKeyAnnounce})
	})
	barrier(t, d, b)
	if _, ok := d.Lookup("Tampered"); ok {
		t.Error("a card with a bad signature was accepted")
	}

	anyDir := newDirectory(t, Options{Bus: embeddedBus(t), WellKnown: []WellKnownAgent{wk}, Trust: TrustAny})
	start(t, anyDir)
	signedAgent(anyDir.opts.Bus, "Billing", key(2)).mustAnnounce(t, false)
	waitFor(t, anyDir, "Billing online under trust any", hasStatus(anyDir, "Billing", StatusOnline))
}

// TestAgentSignedCardsPassThePin: the agent runtime's signatures (Options.SigningKey) are what the directory checks.
func TestAgentSignedCardsPassThePin(t *testing.T) {
	t.Parallel()
	testworld.EachBus(t, func(t *testing.T, w *testworld.World) {
		name := w.N("Signer")
		wk := wellKnown(name)
		wk.PublicKey = pubText(key(8))
		log, logs := observed()
		d := newDirectory(t, Options{Bus: w.Connect(t), WellKnown: []WellKnownAgent{wk}, Logger: log})
		start(t, d)
		<-d.bound
		run := func(k ed25519.PrivateKey) (stop func()) {
			a, err := agent.New(agent.Options{Card: a2a.AgentCard{Name: name, Description: "signs"}, Bus: w.Connect(t), SigningKey: k,
				InstanceID: uuid.NewString()})
			if err != nil {
				t.Fatal(err)
			}
			if err := a.Handle("work", func(context.Context, *agent.Task) (*agent.Result, error) { return agent.TextResult("ok"), nil }); err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan error, 1)
			go func() { done <- a.Run(ctx) }()
			return func() {
				cancel()
				if err := <-done; err != nil && !errors.Is(err, context.Canceled) {
					t.Errorf("agent Run: %v", err)
				}
			}
		}
		impostor := run(key(9))
		testenv.Eventually(t, "the impostor's card refused", func() bool {
			return len(warnings(logs, "announcement refused: not signed by the agent's pinned key")) > 0
		})
		if e, _ := d.Lookup(name); e.Status != StatusWellKnown {
			t.Fatalf("the impostor's card was accepted: %s", e.Status)
		}
		impostor()
		stop := run(key(8))
		defer stop()
		waitFor(t, d, name+" online from the agent's signed card", hasStatus(d, name, StatusOnline))
	})
}

func TestWellKnownPublicKey(t *testing.T) {
	dir := t.TempDir()
	write := func(body string) string {
		p := filepath.Join(dir, uuid.NewString()+".json")
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	agents, err := LoadWellKnown(write(`[{"agentName":"A","skills":[{"id":"s"}],"publicKey":"` + pubText(key(1)) + `"}]`))
	if err != nil || agents[0].PublicKey != pubText(key(1)) {
		t.Fatalf("LoadWellKnown: %v", err)
	}
	_, err = LoadWellKnown(write(`[{"agentName":"A","skills":[{"id":"s"}],"publicKey":"AAAA"}]`))
	if !errors.Is(err, ErrInvalidWellKnown) || !strings.Contains(err.Error(), "publicKey") {
		t.Fatalf("short key: %v", err)
	}
	if _, err := New(Options{Bus: embeddedBus(t), Trust: "sometimes"}); !errors.Is(err, ErrInvalidOptions) {
		t.Errorf("bad trust: %v", err)
	}
	bad := write(`{"version":1,"pins":[{"agentName":"A","publicKey":"nope","pinnedAt":"2025-01-01T00:00:00Z"}]}`)
	if _, err := New(Options{Bus: embeddedBus(t), Trust: TrustTOFU, PinsFile: bad}); !errors.Is(err, ErrInvalidPins) {
		t.Errorf("bad pins file: %v", err)
	}
}
