// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package main

import (
	"strings"
	"testing"
)

// The demo is assembled as serve and invoke are: agents that sign their
// cards with directory.announce_secret are heard by a directory that
// requires the signature, and the demo's calls go through.
func TestDemoHonoursTheAnnounceSecret(t *testing.T) {
	isolate(t, "")
	t.Setenv("A2ABUS_DIRECTORY_ANNOUNCE_SECRET", "0123456789abcdef0123")
	code, out, errOut := runCLI(t, "demo", "--log-level", "error")
	if code != 0 {
		t.Fatalf("demo with an announce secret: exit %d\n%s\n%s", code, out, errOut)
	}
	for _, want := range []string{"SampleAgent    online", "ResearchAgent  online", "[Agent 'SampleAgent' completed", "code=INVALID_INPUT"} {
		if !strings.Contains(out, want) {
			t.Errorf("demo output lacks %q:\n%s", want, out)
		}
	}
}

// The demo's caller is guarded by the policy and limits sections, as every
// assembled caller is: a call the policy denies is refused with FORBIDDEN,
// a call past the rate limit with RATE_LIMITED, before anything is published.
func TestDemoHonoursPolicyAndLimits(t *testing.T) {
	for _, tt := range []struct {
		name, config, refused, code string
	}{
		// The configuration's own rule for DemoCaller wins over the demo's.
		{"policy", "policy:\n  rules:\n    - caller: DemoCaller\n      allow: [\"*\"]\n      deny: [\"Research*\"]\n",
			"demo step 3 (ResearchAgent.research)", "FORBIDDEN"},
		// SampleAgent's bucket holds two calls (echo, npv); its third (sleep) is refused.
		{"limits", "limits:\n  rate: 0.001\n  burst: 2\n", "demo step 4 (SampleAgent.sleep past its deadline)", "RATE_LIMITED"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p := isolate(t, tt.config)
			code, out, errOut := runCLI(t, "demo", "--config", p, "--log-level", "error")
			if code != 1 || !strings.Contains(errOut, tt.refused) || !strings.Contains(errOut, tt.code) {
				t.Fatalf("exit %d, stderr %q; want 1 and %s refused with %s\n%s", code, errOut, tt.refused, tt.code, out)
			}
			if !strings.Contains(out, "1. invoke SampleAgent.echo") || !strings.Contains(out, "-> completed") {
				t.Errorf("the steps before the refused one did not run:\n%s", out)
			}
		})
	}
}

// The demo ends with the Orchestrator's route skill on the keyword
// matcher: a request routed to the skill that fits, one declined.
func TestDemoRoutesByIntent(t *testing.T) {
	isolate(t, "")
	code, out, errOut := runCLI(t, "demo", "--log-level", "error")
	if code != 0 {
		t.Fatalf("demo: exit %d\n%s\n%s", code, out, errOut)
	}
	for _, want := range []string{
		// Deny by default: the demo enables exactly what it calls, and says so.
		"Policy (policy.default deny; the demo adds the rules of what it calls):\n" +
			"  Cli may call any agent (policy.rules[0])\n" +
			"  DemoCaller may call SampleAgent, ResearchAgent, Orchestrator (policy.rules[1])\n" +
			"  Orchestrator may call SampleAgent, ResearchAgent (policy.rules[2])\n" +
			"  any other caller may call no agent (policy.default deny)\n",
		"Routing by intent (a2abus invoke Orchestrator route TEXT), classified by the keyword matcher (no model):",
		`intent "net_present_value", confidence 0.`, "SampleAgent.npv: route\n    NPV of 5 cash flows at 12% per period: 17206.82",
		"no agent: decline\n    None of the agents I can reach can do this. What they can do:\n    - Research (ResearchAgent)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("demo output lacks %q:\n%s", want, out)
		}
	}
}

// The demo shows a task that talks back: SampleAgent's confirm asks, the
// question is answered with invoke_agent and task_id (an option), and a
// follow-up task in the same context is told of the first.
func TestDemoAsksAndFollowsUp(t *testing.T) {
	isolate(t, "")
	code, out, errOut := runCLI(t, "demo", "--log-level", "error")
	if code != 0 {
		t.Fatalf("demo: exit %d\n%s\n%s", code, out, errOut)
	}
	for _, want := range []string{
		`6. invoke_agent(SampleAgent, confirm, "book the meeting room for Friday", wait) — the agent asks a question; the task waits for input`,
		"-> input_required (turn 0, context ", "   asks    Confirm: book the meeting room for Friday?\n   options yes (Yes), no (No)\n",
		"[Agent 'SampleAgent' asks a question in task ", `option "yes", wait)`,
		"-> completed (turn 1): Confirmed: book the meeting room for Friday\n",
		`7. invoke SampleAgent.confirm "send the agenda to the team" in the same context (--context `,
		`asks    Confirm: send the agenda to the team? (earlier in this context, 2 message(s), the latest: "Confirmed: book the meeting room for Friday")`,
		"-> completed (turn 1): Not confirmed: send the agenda to the team\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("demo output lacks %q:\n%s", want, out)
		}
	}
}

// The demo runs from any folder: ResearchAgent searches the docs built
// into the binary, and the well-known file nobody asked for is not warned
// about when the working directory has none.
func TestDemoRunsFromAnyFolder(t *testing.T) {
	isolate(t, "")
	t.Chdir(t.TempDir())
	code, out, errOut := runCLI(t, "demo")
	if code != 0 {
		t.Fatalf("demo outside the repository: exit %d\n%s\n%s", code, out, errOut)
	}
	if errOut != "" {
		t.Errorf("demo outside the repository wrote to stderr (at the default level, warn):\n%s", errOut)
	}
	if !strings.Contains(out, "3. invoke ResearchAgent.research") || !strings.Contains(out, "for 'how is a task result stored in working memory'; best: ") {
		t.Errorf("ResearchAgent's step did not answer from the built-in docs:\n%s", out)
	}
}
