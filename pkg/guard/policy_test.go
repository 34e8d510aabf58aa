// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package guard

import (
	"errors"
	"strings"
	"testing"

	"github.com/a2abus/a2abus/pkg/a2a"
)

func TestMatch(t *testing.T) {
	tests := []struct {
		pattern, name string
		want          bool
	}{
		{"*", "Anything", true},
		{"SampleAgent", "sampleagent", true},
		{"SampleAgent", "SampleAgent2", false},
		{"Sample*", "SampleAgent", true},
		{"sample*", "SAMPLE", true},
		{"Sample*", "Sampl", false},
		{"*Agent", "ResearchAgent", true},
		{"*Agent", "AgentX", false},
		{"S?mple", "Simple", true},
		{"S?mple", "Smple", false},
		{"a*b*c", "aXXbYYc", true},
		{"a*b*c", "aXXcYYb", false},
		{"a*b", "abab", true},
		{"*-?", "bot-7", true},
		{"*-?", "bot-", false},
		{"**", "", true},
		{"?", "", false},
	}
	for _, tt := range tests {
		if got := Match(tt.pattern, tt.name); got != tt.want {
			t.Errorf("Match(%q, %q) = %v, want %v", tt.pattern, tt.name, got, tt.want)
		}
	}
}

func TestValidatePattern(t *testing.T) {
	for _, ok := range []string{"Cli", "*", "Sample?-*_x"} {
		if err := ValidatePattern(ok); err != nil {
			t.Errorf("ValidatePattern(%q) = %v", ok, err)
		}
	}
	for _, bad := range []string{"", "a.b", "[ab]", "a b", strings.Repeat("x", MaxPatternLen+1)} {
		if err := ValidatePattern(bad); err == nil {
			t.Errorf("ValidatePattern(%q) = nil, want an error", bad)
		}
	}
}

func mustGuard(t *testing.T, cfg Config) *Guard {
	t.Helper()
	g, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// forbidden asserts err is FORBIDDEN, not retryable, and says each of parts.
func forbidden(t *testing.T, err error, parts ...string) {
	t.Helper()
	var e *a2a.Error
	if !errors.As(err, &e) || e.Code != a2a.CodeForbidden || e.Retryable {
		t.Fatalf("error = %v, want a non-retryable FORBIDDEN", err)
	}
	for _, p := range parts {
		if !strings.Contains(e.Message, p) {
			t.Errorf("message %q does not say %q", e.Message, p)
		}
	}
}

func TestPolicy(t *testing.T) {
	rules := []Rule{
		{Caller: "Cli", Allow: []string{"*"}, Deny: []string{"Admin*"}},
		{Caller: "Bot-*", NoCalls: true},
		{Caller: "Research*", Allow: []string{"Sample?gent", "Docs"}},
		{Caller: "*", Deny: []string{"Secret"}},
		{Caller: "BOT-special", Allow: []string{"Docs"}}, // exact: wins over Bot-* and * although listed later
		{Caller: "Open"},
	}
	for _, def := range []Effect{"", Allow, Deny} {
		g := mustGuard(t, Config{Policy: Policy{Default: def, Rules: rules}})
		allowed := func(caller, target string) {
			t.Helper()
			if err := g.Authorize(caller, target); err != nil {
				t.Errorf("default %q: %s -> %s refused: %v", def, caller, target, err)
			}
		}
		allowed("Cli", "SampleAgent")
		allowed("cli", "adm") // case-insensitive caller; "adm" is not Admin*
		forbidden(t, g.Authorize("CLI", "AdminTool"), `CLI may not call AdminTool`, `policy.rules[0] (caller "Cli")`, `denies target "Admin*"`,
			`to allow it, drop "Admin*" from policy.rules[0].deny`)
		forbidden(t, g.Authorize("Bot-7", "SampleAgent"), `policy.rules[1] (caller "Bot-*")`, "may_call: false", "to allow it, drop may_call: false from policy.rules[1]")
		allowed("Research2", "SampleAgent")
		allowed("Research2", "docs")
		forbidden(t, g.Authorize("Research2", "Other"), `policy.rules[2] (caller "Research*")`, "allows only Sample?gent, Docs", "to allow it, add Other to policy.rules[2].allow")
		// The first matching pattern governs: Research* has no deny of Secret, "*" is never reached.
		allowed("Research2", "SampleAgent")
		forbidden(t, g.Authorize("Anyone", "secret"), `policy.rules[3] (caller "*")`, `denies target "Secret"`)
		allowed("bot-special", "Docs")
		forbidden(t, g.Authorize("bot-special", "SampleAgent"), `policy.rules[4] (caller "BOT-special")`)
		// A rule with neither list, and a target a rule neither allows nor denies, follow the default.
		for _, pair := range [][2]string{{"Open", "X"}, {"Anyone", "X"}} {
			err := g.Authorize(pair[0], pair[1])
			if def == Deny {
				forbidden(t, err, "policy.default is deny", "to allow it, add")
			} else if err != nil {
				t.Errorf("default %q: %v", def, err)
			}
		}
	}
}

func TestPolicyDefaultWithoutRules(t *testing.T) {
	if err := mustGuard(t, Config{}).Authorize("Cli", "X"); err != nil {
		t.Errorf("zero policy refused: %v", err)
	}
	err := mustGuard(t, Config{Policy: Policy{Default: Deny}}).Authorize("Cli", "X")
	forbidden(t, err, "Cli may not call X", `no policy rule matches caller "Cli" and policy.default is deny`,
		"to allow it, add to policy.rules {caller: Cli, allow: [X]}")
	var nilGuard *Guard
	if err := nilGuard.Authorize("Cli", "X"); err != nil {
		t.Errorf("nil guard refused: %v", err)
	}
}

// TestPolicyRefusalNamesTheKey: following the key a refusal names allows
// the call.
func TestPolicyRefusalNamesTheKey(t *testing.T) {
	base := []Rule{{Caller: "Planner", Allow: []string{"Docs"}}, {Caller: "Bot", NoCalls: true}, {Caller: "Cli", Allow: []string{"*"}, Deny: []string{"Admin"}}}
	for _, tt := range []struct {
		caller, target, says string
		fix                  func([]Rule) []Rule
	}{
		{"Stranger", "Docs", "add to policy.rules {caller: Stranger, allow: [Docs]}", func(r []Rule) []Rule {
			return append(r, Rule{Caller: "Stranger", Allow: []string{"Docs"}})
		}},
		{"Planner", "Sample", "add Sample to policy.rules[0].allow", func(r []Rule) []Rule { r[0].Allow = append(r[0].Allow, "Sample"); return r }},
		{"Bot", "Docs", "drop may_call: false from policy.rules[1]", func(r []Rule) []Rule { r[1].NoCalls = false; r[1].Allow = []string{"Docs"}; return r }},
		{"Cli", "Admin", `drop "Admin" from policy.rules[2].deny`, func(r []Rule) []Rule { r[2].Deny = nil; return r }},
	} {
		rules := func() []Rule {
			out := make([]Rule, len(base))
			for i, r := range base {
				out[i] = Rule{Caller: r.Caller, NoCalls: r.NoCalls, Allow: append([]string(nil), r.Allow...), Deny: append([]string(nil), r.Deny...)}
			}
			return out
		}
		g := mustGuard(t, Config{Policy: Policy{Default: Deny, Rules: rules()}})
		forbidden(t, g.Authorize(tt.caller, tt.target), "to allow it, "+tt.says)
		fixed := mustGuard(t, Config{Policy: Policy{Default: Deny, Rules: tt.fix(rules())}})
		if err := fixed.Authorize(tt.caller, tt.target); err != nil {
			t.Errorf("%s -> %s still refused after %q: %v", tt.caller, tt.target, tt.says, err)
		}
	}
}

func TestPolicyAllowed(t *testing.T) {
	p := Policy{Default: Deny, Rules: []Rule{
		{Caller: "Cli", Allow: []string{"*"}, Deny: []string{"Admin*"}},
		{Caller: "Planner", Allow: []string{"Docs", "Sample*"}},
		{Caller: "Bot", NoCalls: true},
		{Caller: "Open"},
	}}
	want := []string{
		"Cli may call any agent (policy.rules[0]), except Admin*",
		"Planner may call Docs, Sample* (policy.rules[1])",
		"Bot may call no agent (policy.rules[2], may_call: false)",
		"Open may call no agent (policy.rules[3] allows none; policy.default deny)",
		"any other caller may call no agent (policy.default deny)",
	}
	if got := p.Allowed(); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("Allowed() =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	p.Default = Allow
	if got := p.Allowed(); got[3] != "Open may call any agent (policy.rules[3]; policy.default allow)" || got[4] != "any other caller may call any agent (policy.default allow)" {
		t.Errorf("Allowed() with default allow = %q", got)
	}
	if got := (Policy{Default: Deny}).Allowed(); len(got) != 1 || got[0] != "every caller may call no agent (policy.default deny)" {
		t.Errorf("Allowed() without rules = %q", got)
	}
}

func TestNewReportsEveryBadValue(t *testing.T) {
	_, err := New(Config{
		Policy: Policy{Default: "maybe", Rules: []Rule{
			{Caller: "Cli", Allow: []string{"ok", "a.b"}},
			{Caller: "cli"},
			{Caller: "", Deny: []string{""}},
		}},
		Limits: Limits{MaxInFlight: -1, Rate: 1, Burst: 0, BreakerFailures: 2},
	})
	if !errors.Is(err, ErrInvalidConfig) {
		t.Fatalf("New() error = %v, want ErrInvalidConfig", err)
	}
	want := []string{
		`guard: policy.default: must be allow or deny, got "maybe"`,
		`guard: policy.rules[0].allow[1]: must be an agent name or a pattern`,
		`guard: policy.rules[1].caller: "cli" is already the caller of policy.rules[0]`,
		`guard: policy.rules[2].caller: must be 1 to 128 characters, got 0`,
		`guard: policy.rules[2].deny[0]: must be 1 to 128 characters, got 0`,
		`guard: limits.max_in_flight: must be within 0..1000000 (0: unlimited), got -1`,
		`guard: limits.burst: must be within 1..1000000, got 0`,
		`guard: limits.breaker_cooldown: must be a positive duration, got 0s`,
	}
	lines := strings.Split(err.Error(), "\n")
	if len(lines) != len(want) {
		t.Errorf("got %d errors, want %d:\n%v", len(lines), len(want), err)
	}
	for _, w := range want {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error does not contain %q:\n%v", w, err)
		}
	}
	var ce *ConfigError
	if !errors.As(err, &ce) || ce.Key == "" {
		t.Errorf("error %v holds no *ConfigError", err)
	}
}

// Denies counts the rules only: policy.default deny refuses nothing there.
func TestDenies(t *testing.T) {
	g := mustGuard(t, Config{Policy: Policy{Default: Deny, Rules: []Rule{
		{Caller: "Local", Deny: []string{"Secret"}}, {Caller: "Muted", NoCalls: true}, {Caller: "Narrow", Allow: []string{"A"}},
	}}})
	if err := g.Denies("Local", "Remote"); err != nil {
		t.Errorf("Denies(Local, Remote) = %v; only the default refuses it", err)
	}
	if err := g.Denies("Nobody", "Remote"); err != nil {
		t.Errorf("Denies(Nobody, Remote) = %v; no rule names the caller", err)
	}
	forbidden(t, g.Authorize("Local", "Remote"), "policy.default is deny")
	forbidden(t, g.Denies("Local", "secret"), `denies target "Secret"`)
	forbidden(t, g.Denies("Muted", "A"), "may_call: false")
	forbidden(t, g.Denies("Narrow", "B"), "allows only A")
	var nilGuard *Guard
	if err := nilGuard.Denies("Local", "Secret"); err != nil {
		t.Errorf("nil guard: %v", err)
	}
}

// An allowed call costs the policy no allocation: the refusal's names are
// built only for a refusal (check runs on every call).
func TestPolicyAllowsWithoutAllocating(t *testing.T) {
	p, err := newPolicy(Policy{Default: Deny, Rules: []Rule{{Caller: "Other", Allow: []string{"*"}}, {Caller: "Bench*", Allow: []string{"Echo*"}, Deny: []string{"Secret"}}}})
	if err != nil {
		t.Fatal(err)
	}
	if n := testing.AllocsPerRun(100, func() {
		if refused := p.check("BenchCaller", "EchoAgent"); refused != nil {
			t.Fatal(refused)
		}
	}); n != 0 {
		t.Errorf("an allowed call allocated %v times", n)
	}
	if refused := p.check("BenchCaller", "Secret"); refused == nil || !strings.Contains(refused.Message, `policy.rules[1] (caller "Bench*") denies target "Secret"`) {
		t.Errorf("refusal %v", refused)
	}
}
