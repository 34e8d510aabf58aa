// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package converse_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/a2abus/a2abus/pkg/converse"
	"github.com/a2abus/a2abus/pkg/guard"
)

func TestPolicy(t *testing.T) {
	base := converse.Spec{Local: "Mine", LocalSkill: "draft", Remote: "Theirs", RemoteSkill: "answer", Objective: "o"}
	denyBus, err := guard.New(guard.Config{Policy: guard.Policy{Rules: []guard.Rule{{Caller: "Mine", Deny: []string{"Theirs"}}}}})
	if err != nil {
		t.Fatal(err)
	}
	allowAll, err := guard.New(guard.Config{}) // the policy section's default: allow
	if err != nil {
		t.Fatal(err)
	}
	with := func(f func(*converse.Spec)) converse.Spec { s := base; f(&s); return s }
	cases := []struct {
		name string
		p    converse.Policy
		spec converse.Spec
		want error
	}{
		{"default deny, even when the bus allows all", converse.Policy{Bus: allowAll}, base, converse.ErrForbidden},
		{"explicit rule", converse.Policy{Rules: []guard.Rule{converse.AllowPair("Mine", "Theirs")}}, base, nil},
		{"pattern rule", converse.Policy{Rules: []guard.Rule{{Caller: "M*", Allow: []string{"The*"}}}}, base, nil},
		{"rule for another target", converse.Policy{Rules: []guard.Rule{{Caller: "Mine", Allow: []string{"Other"}}}}, base, converse.ErrForbidden},
		{"rule denies", converse.Policy{Rules: []guard.Rule{{Caller: "*", Allow: []string{"*"}, Deny: []string{"Theirs"}}}}, base, converse.ErrForbidden},
		{"consent", converse.Policy{}, with(func(s *converse.Spec) { s.Consent = true }), nil},
		{"consent, but the bus guard denies", converse.Policy{Bus: denyBus}, with(func(s *converse.Spec) { s.Consent = true }), converse.ErrForbidden},
		{"self-loop", converse.Policy{}, with(func(s *converse.Spec) { s.Remote, s.Consent = "mine", true }), converse.ErrLoop},
		{"orchestrator as a party", converse.Policy{}, with(func(s *converse.Spec) { s.Remote, s.Consent = "Converse", true }), converse.ErrLoop},
		{"remote already in the chain", converse.Policy{}, with(func(s *converse.Spec) { s.Chain, s.Consent = []string{"Theirs"}, true }), converse.ErrLoop},
		{"two hops", converse.Policy{}, with(func(s *converse.Spec) { s.Chain, s.Consent = []string{"Origin"}, true }), nil},
		{"three hops", converse.Policy{}, with(func(s *converse.Spec) { s.Chain, s.Consent = []string{"A", "B"}, true }), converse.ErrLoop},
		{"three hops allowed", converse.Policy{MaxHops: 3}, with(func(s *converse.Spec) { s.Chain, s.Consent = []string{"A", "B"}, true }), nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := c.p.Check(c.spec, "Converse")
			if c.want == nil && err != nil || c.want != nil && !errors.Is(err, c.want) {
				t.Fatalf("Check: %v, want %v", err, c.want)
			}
		})
	}
}

func TestParseMode(t *testing.T) {
	for in, want := range map[string]converse.Mode{"": converse.Manual, "semi_auto": converse.SemiAuto, "full_auto": converse.FullAuto} {
		if got, err := converse.ParseMode(in); err != nil || got != want {
			t.Fatalf("ParseMode(%q) = %q, %v", in, got, err)
		}
	}
	if _, err := converse.ParseMode("auto"); !errors.Is(err, converse.ErrInvalidSpec) || !strings.Contains(err.Error(), `"auto"`) {
		t.Fatalf("ParseMode(auto): %v", err)
	}
}

func TestCommandValidate(t *testing.T) {
	if err := (converse.Command{Kind: "explode"}).Validate(); !errors.Is(err, converse.ErrInvalidCommand) {
		t.Fatalf("unknown command: %v", err)
	}
	if err := (converse.Command{Kind: converse.CmdPause, Text: "x"}).Validate(); !errors.Is(err, converse.ErrInvalidCommand) {
		t.Fatalf("pause with text: %v", err)
	}
	if err := converse.ValidateID("cv.x*"); !errors.Is(err, converse.ErrInvalidCommand) {
		t.Fatalf("bad id: %v", err)
	}
}
