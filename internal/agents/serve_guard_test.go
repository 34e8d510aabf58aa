// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package agents

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/a2abus/a2abus/config"
	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/caller"
)

// Served agents apply the configured policy twice: to the callers of their
// tasks, and (SampleAgent) to their own delegations; and SampleAgent.delegate
// honours a task's allow_nested_calls: false. A caller no rule names is
// refused (deny by default), told the key that would allow it.
func TestServeAppliesThePolicy(t *testing.T) {
	w := newWorld(t)
	cfg := testConfig(t)
	cfg.Policy.Rules = []config.PolicyRule{
		{Caller: "Tester", Allow: []string{"Main"}},
		{Caller: "Main", Allow: []string{"*"}, Deny: []string{"Help*"}},
		{Caller: "Intruder", MayCall: new(false)},
	}
	ctx, cancel := context.WithCancel(testCtx(t))
	done := make(chan error, 3)
	for _, name := range []string{"Main", "Helper", "Other"} {
		go func() { done <- serveOn(ctx, cfg, KindSample, name, w.Connect(w.t), keepOpen{w.Memory}) }()
	}
	tester, intruder, stranger := w.caller("Tester"), w.caller("Intruder"), w.caller("Stranger") // no guard of their own
	call := func(c *caller.Caller, req caller.Request) *caller.Outcome {
		t.Helper()
		req.Timeout = 10 * time.Second
		out, err := c.Call(ctx, req, nil)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	delegate := func(to string) json.RawMessage {
		in, _ := json.Marshal(map[string]any{"agent": to, "skill": "echo", "text": "relayed"})
		return in
	}
	wantForbidden := func(what string, out *caller.Outcome, text string) {
		t.Helper()
		if err := out.Err(); a2a.CodeOf(err) != a2a.CodeForbidden || !strings.Contains(err.Error(), text) {
			t.Errorf("%s = %v, want FORBIDDEN %q", what, err, text)
		}
	}
	// Main's own caller refuses its delegation to Helper; Other is fine.
	wantForbidden("delegation to Helper", call(tester, caller.Request{Target: "Main", Skill: "delegate", Input: delegate("Helper")}),
		`Main may not call Helper: policy.rules[1] (caller "Main") denies target "Help*"; to allow it, drop "Help*" from policy.rules[1].deny`)
	if out := call(tester, caller.Request{Target: "Main", Skill: "delegate", Input: delegate("Other")}); out.Err() != nil || out.Result.Text() != "relayed" {
		t.Errorf("delegation to Other = %v %q", out.Err(), out.Result.Text())
	}
	// The task forbids nested calls: delegate is refused by Main's caller.
	wantForbidden("delegation without nested calls",
		call(tester, caller.Request{Target: "Main", Skill: "delegate", Input: delegate("Other"), AllowNestedCalls: new(false)}),
		"does not allow nested calls")
	// Main refuses a caller the policy forbids, though that caller has no guard.
	wantForbidden("intruder's task", call(intruder, caller.Request{Target: "Main", Skill: "echo", Text: "hi"}), "may_call: false")
	// Deny by default: Main refuses a caller no rule names, and Other, for
	// which no rule allows anything, may not delegate.
	wantForbidden("stranger's task", call(stranger, caller.Request{Target: "Main", Skill: "echo", Text: "hi"}),
		`no policy rule matches caller "Stranger" and policy.default is deny; to allow it, add to policy.rules {caller: Stranger, allow: [Main]}`)
	wantForbidden("a delegation no rule allows", call(tester, caller.Request{Target: "Main", Skill: "delegate",
		Input: json.RawMessage(`{"agent": "Other", "skill": "delegate", "input": {"agent": "Helper", "skill": "echo", "text": "x"}}`)}),
		"Other may not call Helper: no policy rule matches caller \"Other\"")
	cancel()
	for range 3 {
		if err := <-done; err != nil {
			t.Errorf("serve = %v, want a clean stop", err)
		}
	}
}
