// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package guard

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/a2abus/a2abus/pkg/a2a"
)

// Effect is what the policy does with a call no rule decides.
type Effect string

// The effects of Policy.Default.
const (
	Allow Effect = "allow"
	Deny  Effect = "deny"
)

// Policy says which callers may call which agents.
type Policy struct {
	// Default decides for a caller no rule matches, and for a target a
	// matching rule neither allows nor denies; "" means Allow.
	Default Effect
	// Rules are per caller. A rule naming the caller exactly (any case) wins
	// over patterns; among patterns the first that matches wins.
	Rules []Rule
}

// Rule is the policy of the callers whose name matches Caller. Patterns
// (Caller, Allow, Deny) are agent names where '*' matches any run of
// characters and '?' one character, compared case-insensitively.
type Rule struct {
	// Caller is a caller name or pattern.
	Caller string
	// NoCalls forbids these callers to call any agent (config may_call: false).
	NoCalls bool
	// Allow lists the targets these callers may call; empty leaves the
	// targets Deny does not name to Default.
	Allow []string
	// Deny lists the targets these callers may not call; it wins over Allow.
	Deny []string
}

// MaxPatternLen bounds a name pattern.
const MaxPatternLen = 128

// ValidatePattern reports whether p is a legal name pattern: 1 to
// MaxPatternLen letters, digits, '_', '-', '*' or '?'.
func ValidatePattern(p string) error {
	if p == "" || len(p) > MaxPatternLen {
		return fmt.Errorf("must be 1 to %d characters, got %d", MaxPatternLen, len(p))
	}
	for i := range len(p) {
		if c := p[i]; !isNameByte(c) && c != '*' && c != '?' {
			return fmt.Errorf("must be an agent name or a pattern of letters, digits, '_', '-', '*' and '?', got %q", p)
		}
	}
	return nil
}

func isNameByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-'
}

// Match reports whether name matches pattern ('*' any run, '?' one
// character), ignoring ASCII case as agent names do (see a2a.SameAgent).
func Match(pattern, name string) bool {
	p, s := 0, 0
	star, resume := -1, 0 // the last '*' seen and where its match resumes in name
	for p < len(pattern) || s < len(name) {
		if p < len(pattern) {
			switch c := pattern[p]; {
			case c == '*':
				star, resume = p, s
				p++
				continue
			case s < len(name) && (c == '?' || lower(c) == lower(name[s])):
				p++
				s++
				continue
			}
		}
		if star >= 0 && resume < len(name) { // let the last '*' swallow one more character
			resume++
			p, s = star+1, resume
			continue
		}
		return false
	}
	return true
}

func lower(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

func isPattern(p string) bool { return strings.ContainsAny(p, "*?") }

// policy is a validated Policy.
type policy struct {
	deny  bool // Default is Deny
	rules []Rule
}

func newPolicy(p Policy) (*policy, error) {
	var errs []error
	switch p.Default {
	case "", Allow, Deny:
	default:
		errs = append(errs, invalid("policy.default", "must be allow or deny, got %q", p.Default))
	}
	seen := map[string]int{}
	for i, r := range p.Rules {
		key := fmt.Sprintf("policy.rules[%d]", i)
		if err := ValidatePattern(r.Caller); err != nil {
			errs = append(errs, invalid(key+".caller", "%v", err))
		} else if j, dup := seen[strings.ToLower(r.Caller)]; dup {
			errs = append(errs, invalid(key+".caller", "%q is already the caller of policy.rules[%d]", r.Caller, j))
		} else {
			seen[strings.ToLower(r.Caller)] = i
		}
		for j, pat := range r.Allow {
			if err := ValidatePattern(pat); err != nil {
				errs = append(errs, invalid(fmt.Sprintf("%s.allow[%d]", key, j), "%v", err))
			}
		}
		for j, pat := range r.Deny {
			if err := ValidatePattern(pat); err != nil {
				errs = append(errs, invalid(fmt.Sprintf("%s.deny[%d]", key, j), "%v", err))
			}
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	rules := make([]Rule, len(p.Rules))
	for i, r := range p.Rules {
		rules[i] = Rule{Caller: r.Caller, NoCalls: r.NoCalls, Allow: append([]string(nil), r.Allow...), Deny: append([]string(nil), r.Deny...)}
	}
	return &policy{deny: p.Default == Deny, rules: rules}, nil
}

// ruleFor returns the index of the rule that governs caller, or -1.
func (p *policy) ruleFor(caller string) int {
	first := -1
	for i, r := range p.rules {
		if !isPattern(r.Caller) {
			if a2a.SameAgent(r.Caller, caller) {
				return i
			}
			continue
		}
		if first < 0 && Match(r.Caller, caller) {
			first = i
		}
	}
	return first
}

// check returns the FORBIDDEN refusal of a call from caller to target, or
// nil. A refusal names the rule that refused and the key that would allow
// the call.
func (p *policy) check(caller, target string) *a2a.Error {
	refuse := func(why, allow string) *a2a.Error {
		return a2a.NewError(a2a.CodeForbidden, "%s may not call %s: %s; to allow it, %s", caller, target, why, allow)
	}
	i := p.ruleFor(caller)
	if i < 0 {
		if p.deny {
			return refuse(fmt.Sprintf("no policy rule matches caller %q and policy.default is deny", caller),
				fmt.Sprintf("add to policy.rules {caller: %s, allow: [%s]}", caller, target))
		}
		return nil
	}
	r := p.rules[i]
	// The rule's names are built only for a refusal: check runs on every call.
	key := func() string { return fmt.Sprintf("policy.rules[%d]", i) }
	rule := func() string { return fmt.Sprintf("%s (caller %q)", key(), r.Caller) }
	if r.NoCalls {
		return refuse(rule()+" does not let it call other agents (may_call: false)", "drop may_call: false from "+key())
	}
	for _, pat := range r.Deny {
		if Match(pat, target) {
			return refuse(fmt.Sprintf("%s denies target %q", rule(), pat), fmt.Sprintf("drop %q from %s.deny (deny wins over allow)", pat, key()))
		}
	}
	if len(r.Allow) == 0 {
		if p.deny {
			return refuse(rule()+" allows no target and policy.default is deny", fmt.Sprintf("add %s to %s.allow", target, key()))
		}
		return nil
	}
	for _, pat := range r.Allow {
		if Match(pat, target) {
			return nil
		}
	}
	return refuse(fmt.Sprintf("%s allows only %s", rule(), strings.Join(r.Allow, ", ")), fmt.Sprintf("add %s to %s.allow", target, key()))
}

// Allowed describes, one line per rule and a last one for every other
// caller, which calls the policy allows (what a2abus config check lists).
func (p Policy) Allowed() []string {
	deny := p.Default == Deny
	targets := func(pats []string) string {
		if slices.Contains(pats, "*") {
			return "any agent"
		}
		return strings.Join(pats, ", ")
	}
	var out []string
	for i, r := range p.Rules {
		key := fmt.Sprintf("policy.rules[%d]", i)
		var line string
		switch {
		case r.NoCalls:
			line = fmt.Sprintf("%s may call no agent (%s, may_call: false)", r.Caller, key)
		case len(r.Allow) > 0:
			line = fmt.Sprintf("%s may call %s (%s)", r.Caller, targets(r.Allow), key)
		case deny:
			line = fmt.Sprintf("%s may call no agent (%s allows none; policy.default deny)", r.Caller, key)
		default:
			line = fmt.Sprintf("%s may call any agent (%s; policy.default allow)", r.Caller, key)
		}
		if !r.NoCalls && len(r.Deny) > 0 && (len(r.Allow) > 0 || !deny) {
			line += ", except " + strings.Join(r.Deny, ", ")
		}
		out = append(out, line)
	}
	others := "any other caller"
	if len(p.Rules) == 0 {
		others = "every caller"
	}
	if deny {
		return append(out, others+" may call no agent (policy.default deny)")
	}
	return append(out, others+" may call any agent (policy.default allow)")
}

// Denies returns the FORBIDDEN refusal of a call from caller to target by
// a rule that names it (a deny list, may_call: false, or an allow list
// that leaves the target out), nil when no rule refuses it, whatever
// policy.default says: what a consent given elsewhere (converse --allow)
// cannot override.
func (g *Guard) Denies(caller, target string) error {
	if g == nil {
		return nil
	}
	explicit := &policy{rules: g.policy.rules} // the same rules, default allow
	if err := explicit.check(caller, target); err != nil {
		return err
	}
	return nil
}
