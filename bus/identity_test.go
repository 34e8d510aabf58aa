// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package bus

import (
	"errors"
	"testing"
)

func TestIdentitiesSender(t *testing.T) {
	ids, err := NewIdentities("", nil, []string{"svc=SampleAgent", "svc=ResearchAgent"})
	if err != nil {
		t.Fatal(err)
	}
	msg := func(user string) *Message { return &Message{UserID: user} }
	for _, tc := range []struct {
		name, own, user, claim string
		allowed                bool
	}{
		{"own-name user acts as itself", "Cli", "Alice", "Alice", true},
		{"own-name user cannot act as another", "Cli", "Alice", "Bob", false},
		{"names compare case-insensitively", "Cli", "Alice", "alice", true},
		{"mapped user acts as each of its names", "Cli", "svc", "ResearchAgent", true},
		{"mapped user only as its names", "Cli", "svc", "svc", false},
		{"a user that is no agent name names nobody", "Cli", "a.b", "a.b", false},
		{"checked even by a guest receiver", "guest", "Alice", "Bob", false},
		{"guest sender, guest receiver: the body is trusted", "guest", "guest", "Bob", true},
		{"no user, guest receiver: the body is trusted", "guest", "", "Bob", true},
		{"guest sender, own-user receiver: refused", "Cli", "guest", "Bob", false},
		{"no user, own-user receiver: refused", "Cli", "", "Bob", false},
		{"no user, embedded receiver without user: trusted", "", "", "Bob", true},
	} {
		if got := ids.Sender(tc.own, msg(tc.user)).Allows(tc.claim); got != tc.allowed {
			t.Errorf("%s: Allows(%q) by user %q at %q = %v", tc.name, tc.claim, tc.user, tc.own, got)
		}
	}

	broker, _ := NewIdentities(IdentityBroker, nil, nil)
	if broker.Sender("", msg("")).Allows("Bob") {
		t.Error("broker mode: a message without user_id was allowed")
	}
	body, _ := NewIdentities(IdentityBody, nil, nil)
	if !body.Sender("Cli", msg("Alice")).Allows("Bob") {
		t.Error("body mode: the body was not trusted")
	}
	var none *Identities // the zero behaviour: auto, guest shared, user = name
	if none.Sender("Cli", msg("Alice")).Allows("Bob") || !none.Sender("Cli", msg("Alice")).Allows("Alice") {
		t.Error("nil Identities: not the auto convention")
	}
	if s := none.Sender("Cli", msg("Alice")); s.Name() != "Alice" {
		t.Errorf("Name() = %q", s.Name())
	}
}

func TestNewIdentitiesRefusesBadSettings(t *testing.T) {
	for _, tc := range []struct {
		mode          string
		shared, users []string
	}{
		{mode: "maybe"},
		{users: []string{"nouser"}},
		{users: []string{"=Name"}},
		{users: []string{"u=bad name"}},
		{users: []string{"guest=Cli"}},
		{shared: []string{" "}},
	} {
		if _, err := NewIdentities(tc.mode, tc.shared, tc.users); !errors.Is(err, ErrInvalidIdentity) {
			t.Errorf("NewIdentities(%q, %q, %q) = %v, want ErrInvalidIdentity", tc.mode, tc.shared, tc.users, err)
		}
	}
}
