// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package node

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/a2abus/a2abus/config"
	"github.com/a2abus/a2abus/directory"
	"github.com/a2abus/a2abus/internal/testenv"
	"github.com/a2abus/a2abus/internal/testworld"
	"github.com/a2abus/a2abus/pkg/a2a"
)

// A pinned agent announces through the node with the key of
// agent.signing_key_file, and the node's directory (directory.trust:
// pinned, its key in the well-known file) lists it; the same card from a
// node without that key is refused.
func TestSigningKeyFromConfiguration(t *testing.T) {
	dir := t.TempDir()
	pub, key, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	private, _, err := a2a.MarshalKeyPair(key)
	if err != nil {
		t.Fatal(err)
	}
	keyFile := filepath.Join(dir, "Signed.key")
	if err := os.WriteFile(keyFile, private, 0o600); err != nil {
		t.Fatal(err)
	}
	wk, err := json.Marshal([]map[string]any{{"agentName": "Signed", "description": "pinned", "version": "1",
		"skills": []map[string]string{{"id": "echo", "name": "Echo", "description": "echo"}}, "publicKey": a2a.EncodePublicKey(pub)}})
	if err != nil {
		t.Fatal(err)
	}
	wkFile := filepath.Join(dir, "well-known-agents.json")
	if err := os.WriteFile(wkFile, wk, 0o600); err != nil {
		t.Fatal(err)
	}
	w := testworld.Embedded(t)
	node := func(signing string) *Node {
		cfg := config.Default()
		cfg.Bus.Exchange, cfg.Directory.WellKnownFile, cfg.Agent.SigningKeyFile = w.Exchange, wkFile, signing
		n, err := With(cfg, w.Connect(t), w.Memory, nil)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	d, stop, err := node("").StartDirectory(context.Background(), Lister)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(stop)
	card := a2a.AgentCard{Name: "Signed", Version: "1", Skills: []a2a.AgentSkill{{ID: "echo", Name: "Echo"}}}

	impostor, err := node("").Agent(card)
	if err != nil {
		t.Fatal(err)
	}
	testworld.Start(t, impostor)
	signed, err := node(keyFile).Agent(card)
	if err != nil {
		t.Fatal(err)
	}
	testworld.Start(t, signed)
	testenv.Eventually(t, "the signed agent listed online", func() bool {
		e, ok := d.Lookup("Signed")
		return ok && e.Status == directory.StatusOnline
	}, testenv.WakeOn(d.Changes()))
	if e, _ := d.Lookup("Signed"); len(e.Instances) != 1 {
		t.Fatalf("instances %+v: want only the signed agent's (the unsigned one refused)", e.Instances)
	}
}
