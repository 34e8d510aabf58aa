// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package converse

import (
	"fmt"
	"strings"

	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/guard"
)

// Policy decides which local agents may hold conversations with which
// remote agents. It is deny by default: a pair is allowed only when a rule
// for the local agent lists the remote in Allow (names or patterns, as in the
// policy section) and no Deny names it — a Default of allow in the policy
// section does not count — or the spec carries the starter's Consent. Bus,
// when set, is the process's call guard (node.Guard, the policy section):
// its refusal of local → remote wins over a rule, and a refusal by one of
// its rules (guard.Denies, not its default) wins over a consent.
type Policy struct {
	// Rules are the explicit allow lists, with guard.Rule's meaning (Caller
	// is the local agent). policy.rules of the configuration may be passed
	// as they are: only their explicit Allow entries open a pair.
	Rules []guard.Rule
	// Bus is the configured guard; nil checks nothing more.
	Bus *guard.Guard
	// MaxHops bounds the hops before the remote (the spec's chain plus the
	// local agent); default DefaultMaxHops (2).
	MaxHops int
}

// AllowPair returns the rule that lets local talk to remote, for a
// --allow flag.
func AllowPair(local, remote string) guard.Rule {
	return guard.Rule{Caller: local, Allow: []string{remote}}
}

// Check refuses a conversation between spec's agents: ErrLoop for a
// self-loop, a cycle or too many hops, ErrForbidden when the pair is not
// explicitly allowed; nil when it may go on. orchestrator is the caller name
// that sends the turns.
func (p Policy) Check(spec Spec, orchestrator string) error {
	if a2a.SameAgent(spec.Local, spec.Remote) {
		return fmt.Errorf("%w: %s may not converse with itself", ErrLoop, spec.Local)
	}
	for _, name := range []string{spec.Local, spec.Remote} {
		if a2a.SameAgent(name, orchestrator) {
			return fmt.Errorf("%w: the orchestrator %s may not be a party of its own conversation", ErrLoop, orchestrator)
		}
		for _, c := range spec.Chain {
			if a2a.SameAgent(c, name) {
				return fmt.Errorf("%w: %s is already in the call chain %s", ErrLoop, name, strings.Join(spec.Chain, " → "))
			}
		}
	}
	maxHops := p.MaxHops
	if maxHops <= 0 {
		maxHops = DefaultMaxHops
	}
	if hops := hopCount(spec); hops > maxHops {
		return fmt.Errorf("%w: hop count %d (chain %s → %s) is above the maximum %d",
			ErrLoop, hops, strings.Join(spec.Chain, " → "), spec.Local, maxHops)
	}
	rules := p.Rules
	if spec.Consent {
		rules = append([]guard.Rule{AllowPair(spec.Local, spec.Remote)}, rules...)
	}
	g, err := guard.New(guard.Config{Policy: guard.Policy{Default: guard.Deny, Rules: rules}})
	if err != nil {
		return fmt.Errorf("%w: conversation policy: %w", ErrInvalidSpec, err)
	}
	if err := g.Authorize(spec.Local, spec.Remote); err != nil {
		return fmt.Errorf("%w: %s may not converse with %s: no rule for %s allows it (policy.rules allow, or --allow)",
			ErrForbidden, spec.Local, spec.Remote, spec.Local)
	}
	busCheck := p.Bus.Authorize
	if spec.Consent { // the starter's consent stands in for a rule: only a rule that refuses the pair wins over it
		busCheck = p.Bus.Denies
	}
	if err := busCheck(spec.Local, spec.Remote); err != nil {
		return fmt.Errorf("%w: the policy section refuses %s → %s: %w", ErrForbidden, spec.Local, spec.Remote, err)
	}
	return nil
}

// hopCount is the number of agents before the remote: the chain that led
// to the conversation, and the local agent.
func hopCount(spec Spec) int { return len(spec.Chain) + 1 }

// negativeBound names the first of spec's limits and history bounds that
// is negative (as its JSON field: limits.maxTurns), "" when none is.
func negativeBound(spec Spec) string {
	l, h := spec.Limits, spec.History
	for _, b := range []struct {
		name     string
		negative bool
	}{
		{"limits.maxTurns", l.MaxTurns < 0}, {"limits.maxDuration", l.MaxDuration < 0}, {"limits.maxFailures", l.MaxFailures < 0},
		{"limits.tokenBudget", l.TokenBudget < 0}, {"limits.localTimeout", l.LocalTimeout < 0}, {"limits.remoteTimeout", l.RemoteTimeout < 0},
		{"history.maxTurns", h.MaxTurns < 0}, {"history.maxChars", h.MaxChars < 0}, {"history.maxOutputChars", h.MaxOutputChars < 0},
	} {
		if b.negative {
			return b.name
		}
	}
	return ""
}

// normalize validates spec and fills its defaults.
func normalize(spec Spec) (Spec, error) {
	for what, name := range map[string]string{"local agent": spec.Local, "remote agent": spec.Remote} {
		if err := a2a.ValidateAgentName(name); err != nil {
			return spec, fmt.Errorf("%w: %s: %w", ErrInvalidSpec, what, err)
		}
	}
	for what, skill := range map[string]string{"local skill": spec.LocalSkill, "remote skill": spec.RemoteSkill} {
		if err := a2a.ValidateSkillID(skill); err != nil {
			return spec, fmt.Errorf("%w: %s: %w", ErrInvalidSpec, what, err)
		}
	}
	if strings.TrimSpace(spec.Objective) == "" {
		return spec, fmt.Errorf("%w: the objective is empty", ErrInvalidSpec)
	}
	m, err := ParseMode(string(spec.Mode))
	if err != nil {
		return spec, err
	}
	spec.Mode = m
	if spec.Threshold == "" {
		spec.Threshold = a2a.ConfidenceMedium
	}
	if confidenceRank(spec.Threshold) < 0 {
		return spec, fmt.Errorf("%w: threshold %q is not HIGH, MEDIUM, LOW or SPECULATIVE", ErrInvalidSpec, spec.Threshold)
	}
	if name := negativeBound(spec); name != "" {
		return spec, fmt.Errorf("%w: %s must not be negative", ErrInvalidSpec, name)
	}
	l := &spec.Limits
	def(&l.MaxTurns, DefaultMaxTurns)
	def(&l.MaxDuration, DefaultMaxDuration)
	def(&l.MaxFailures, DefaultMaxFailures)
	bound := DefaultLocalTimeout
	if spec.AllowToolUse {
		bound = DefaultToolUseTimeout
	}
	def(&l.LocalTimeout, bound)
	if l.LocalTimeout > bound {
		return spec, fmt.Errorf("%w: local timeout %s is above %s, the bound %s", ErrInvalidSpec, l.LocalTimeout, bound, timeoutBoundWhy(spec.AllowToolUse))
	}
	def(&l.RemoteTimeout, DefaultRemoteTimeout)
	h := &spec.History
	def(&h.MaxTurns, DefaultMaxHistoryTurns)
	def(&h.MaxChars, DefaultMaxHistoryChars)
	def(&h.MaxOutputChars, DefaultMaxOutputChars)
	for _, c := range spec.Chain {
		if err := a2a.ValidateAgentName(c); err != nil {
			return spec, fmt.Errorf("%w: chain: %w", ErrInvalidSpec, err)
		}
	}
	return spec, nil
}

// timeoutBoundWhy says where the local timeout's bound comes from.
func timeoutBoundWhy(toolUse bool) string {
	if toolUse {
		return "with tool use allowed"
	}
	return "without tool use (allow tool use for up to " + DefaultToolUseTimeout.String() + ")"
}

func def[T ~int | ~int64](v *T, d T) {
	if *v == 0 {
		*v = d
	}
}

// confidenceRank orders confidences: SPECULATIVE 0 … HIGH 3; none -1
// (below every threshold), unknown -2.
func confidenceRank(c a2a.Confidence) int {
	switch strings.ToUpper(string(c)) {
	case "HIGH":
		return 3
	case "MEDIUM":
		return 2
	case "LOW":
		return 1
	case "SPECULATIVE":
		return 0
	case "":
		return -1
	}
	return -2
}
