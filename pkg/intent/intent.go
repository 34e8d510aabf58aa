// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

// Package intent classifies a request into intents and routes it to the
// agent and skill that fit: the Orchestrator's route skill. A Classifier
// maps the request onto the candidates (every skill of the directory's
// cards) with a confidence: Matcher, a deterministic keyword and skill-tag
// matcher that needs no model, or LLMClassifier, a model's judgement
// checked against the candidates. Decide turns the Classification into a
// Decision (route, ask a clarifying question, offer the options, decline),
// and Router is the skill handler that acts on it, over as many turns as
// the questions take. docs/routing.md describes the skill.
package intent

import (
	"context"
	"errors"
	"strings"
)

// Defaults of the decision's bounds (orchestrator.* in the configuration).
const (
	// DefaultThreshold is the confidence at or above which a request is routed.
	DefaultThreshold = 0.6
	// DefaultMargin is how close to the best routing another must be to be
	// offered beside it.
	DefaultMargin = 0.1
	// DefaultFloor is the confidence below which a routing does not fit at all.
	DefaultFloor = 0.2
	// DefaultMaxQuestions is how many questions the route skill asks in one
	// task before it decides with what it has.
	DefaultMaxQuestions = 2
)

// Bounds of the candidates and texts a classifier works on.
const (
	// MaxOptions is the most routings offered in one question.
	MaxOptions = 5
	// MaxRequestBytes bounds the request text a classifier reads; the rest
	// is cut.
	MaxRequestBytes = 16 << 10
)

// Errors of the package.
var (
	// ErrBadAnswer: the model's classification could not be used (not
	// JSON, a routing to no candidate, a confidence outside 0..1); see
	// *BadAnswerError.
	ErrBadAnswer = errors.New("intent: bad classification from the model")
	// ErrInvalidOptions: a Router or classifier was built with missing or
	// out-of-range options.
	ErrInvalidOptions = errors.New("intent: invalid options")
)

// Candidate is one routing the classifier may choose: a skill of an agent,
// as its card describes it.
type Candidate struct {
	// Agent is the agent's bus name; Skill the skill's id.
	Agent string
	Skill string
	// Name, Description, Tags and Examples are the skill's, from the card.
	Name        string
	Description string
	Tags        []string
	Examples    []string
	// AgentDescription is the card's description of the agent.
	AgentDescription string
	// SingleSkill is true when the skill is the agent's only one: the
	// agent's description then describes the skill too.
	SingleSkill bool
}

// Target returns the candidate's agent and skill.
func (c Candidate) Target() Target { return Target{Agent: c.Agent, Capability: c.Skill} }

// Intent is the name of the intent the candidate serves: its skill's name
// in snake_case (net_present_value), or its skill id when it has no name.
func (c Candidate) Intent() string {
	if n := snake(c.Name); n != "" {
		return n
	}
	return c.Skill
}

// snake is s lower-cased with every run of other characters than letters
// and digits as one '_'.
func snake(s string) string {
	var b strings.Builder
	gap := false
	for _, r := range strings.ToLower(s) {
		if isWordRune(r) {
			if gap && b.Len() > 0 {
				b.WriteByte('_')
			}
			b.WriteRune(r)
			gap = false
		} else {
			gap = true
		}
	}
	return b.String()
}

// Target is an agent and one of its skills (the seed's {agent, capability}).
type Target struct {
	Agent      string `json:"agent"`
	Capability string `json:"capability"`
}

// Routing is a routing the classifier weighed: an intent, its target and
// its confidence (0..1).
type Routing struct {
	Intent     string  `json:"intent"`
	Agent      string  `json:"agent"`
	Capability string  `json:"capability"`
	Confidence float64 `json:"confidence"`
}

// Target returns the routing's agent and skill.
func (r Routing) Target() Target { return Target{Agent: r.Agent, Capability: r.Capability} }

// Classification is a request's intents and where they go, in the shape of
// the Orchestrator protocol's intent classification (camelCase): the
// primary intent, the confidence in it, its target agent and capability
// (skill), and the secondary intents of a multi-part request with their
// targets. Alternatives are the other routings of the primary intent the
// classifier weighed, best first: those close to the primary are offered
// as options. An empty TargetAgent means no routing fits.
type Classification struct {
	PrimaryIntent    string    `json:"primaryIntent"`
	IntentConfidence float64   `json:"intentConfidence"`
	TargetAgent      string    `json:"targetAgent"`
	TargetCapability string    `json:"targetCapability"`
	SecondaryIntents []string  `json:"secondaryIntents"`
	SecondaryTargets []Target  `json:"secondaryTargets"`
	Alternatives     []Routing `json:"alternatives,omitempty"`
	// Classifier names what classified: "matcher" or "llm".
	Classifier string `json:"classifier,omitempty"`
}

// Primary is the primary routing (zero when none fits).
func (c *Classification) Primary() Routing {
	return Routing{Intent: c.PrimaryIntent, Agent: c.TargetAgent, Capability: c.TargetCapability, Confidence: c.IntentConfidence}
}

// Request is what a classifier classifies.
type Request struct {
	// Text is the request in the user's words, clarifications included.
	Text string
	// Candidates are the routings to choose from.
	Candidates []Candidate
}

// Classifier classifies a request onto its candidates. The classification
// only names candidates of the request; a classifier that cannot answer
// returns an error (a model's unusable answer wraps ErrBadAnswer).
type Classifier interface {
	Classify(ctx context.Context, req Request) (*Classification, error)
}
