// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package intent

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/a2abus/a2abus/internal/text"
	"github.com/a2abus/a2abus/pkg/llm"
)

// Defaults of LLMClassifier.
const (
	// DefaultLLMAttempts is how often the model is asked: once, and once
	// more with the reason its first answer was refused.
	DefaultLLMAttempts = 2
	// DefaultLLMCandidates is the most candidates listed in the prompt:
	// those the matcher finds closest, then the others in order.
	DefaultLLMCandidates = 40
	// DefaultLLMMaxTokens bounds the model's answer.
	DefaultLLMMaxTokens = 800
	// maxDescriptionBytes bounds a candidate's description in the prompt.
	maxDescriptionBytes = 300
	// maxListed bounds the secondary targets and alternatives of an answer.
	maxListed = 10
	// maxIntentBytes bounds an intent's name.
	maxIntentBytes = 100
)

// BadAnswerError is a model answer LLMClassifier could not use: Reason says
// why, Answer is its beginning.
type BadAnswerError struct {
	Reason string
	Answer string
}

func (e *BadAnswerError) Error() string {
	return fmt.Sprintf("%v: %s (answer: %q)", ErrBadAnswer, e.Reason, e.Answer)
}

// Unwrap returns ErrBadAnswer.
func (e *BadAnswerError) Unwrap() error { return ErrBadAnswer }

// LLMClassifier is the Classifier backed by a model: the prompt lists the
// candidates (agent, skill, name, tags, description), the model answers
// one JSON object in the classification's shape, and ParseAnswer checks it
// names only candidates with confidences within 0..1. An answer that fails
// the check is sent back once with the reason; a second bad answer is a
// *BadAnswerError.
type LLMClassifier struct {
	// Model answers. Required.
	Model llm.Client
	// Attempts, Candidates and MaxTokens default to DefaultLLMAttempts,
	// DefaultLLMCandidates and DefaultLLMMaxTokens.
	Attempts   int
	Candidates int
	MaxTokens  int
}

// Classify asks the model to classify req.
func (l *LLMClassifier) Classify(ctx context.Context, req Request) (*Classification, error) {
	if l == nil || l.Model == nil {
		return nil, fmt.Errorf("%w: LLMClassifier needs a Model", ErrInvalidOptions)
	}
	cands := promptCandidates(req, cmp.Or(l.Candidates, DefaultLLMCandidates))
	msgs := []llm.Message{
		{Role: llm.RoleSystem, Content: systemPrompt(cands)},
		{Role: llm.RoleUser, Content: text.Cut(req.Text, MaxRequestBytes)},
	}
	var lastErr error
	attempts := l.Attempts
	if attempts <= 0 {
		attempts = DefaultLLMAttempts
	}
	for range attempts {
		resp, err := l.Model.Complete(ctx, llm.Request{Messages: msgs, MaxTokens: cmp.Or(l.MaxTokens, DefaultLLMMaxTokens)})
		if err != nil {
			return nil, fmt.Errorf("intent: classify with the model: %w", err)
		}
		c, err := ParseAnswer(resp.Message.Content, cands)
		if err == nil {
			return c, nil
		}
		lastErr = err
		msgs = append(msgs, llm.Message{Role: llm.RoleAssistant, Content: resp.Message.Content},
			llm.Message{Role: llm.RoleUser, Content: "That answer could not be used: " + errReason(err) + ". Answer again with only the JSON object, naming only agents and capabilities of the list."})
	}
	return nil, lastErr
}

// errReason is a BadAnswerError's reason, or err's text.
func errReason(err error) string {
	if be, ok := errors.AsType[*BadAnswerError](err); ok {
		return be.Reason
	}
	return err.Error()
}

// promptCandidates are the candidates the prompt lists: at most n, those
// the matcher finds some evidence for first (best first), then the others
// in their order.
func promptCandidates(req Request, n int) []Candidate {
	if len(req.Candidates) <= n {
		return req.Candidates
	}
	m := Match(req)
	first := []Target{m.Primary().Target()}
	for _, a := range m.Alternatives {
		first = append(first, a.Target())
	}
	first = append(first, m.SecondaryTargets...)
	out := make([]Candidate, 0, n)
	seen := map[Target]bool{}
	for _, t := range first {
		for _, c := range req.Candidates {
			if c.Target() == t && !seen[t] && len(out) < n {
				seen[t] = true
				out = append(out, c)
			}
		}
	}
	for _, c := range req.Candidates {
		if !seen[c.Target()] && len(out) < n {
			seen[c.Target()] = true
			out = append(out, c)
		}
	}
	return out
}

// systemPrompt tells the model the candidates and the answer's shape.
func systemPrompt(cands []Candidate) string {
	var b strings.Builder
	b.WriteString(`You route a user's request to the agent and capability (skill) that can serve it, choosing only from this list:
`)
	for _, c := range cands {
		fmt.Fprintf(&b, "- agent=%s capability=%s", c.Agent, c.Skill)
		if c.Name != "" {
			fmt.Fprintf(&b, " name=%q", c.Name)
		}
		if len(c.Tags) > 0 {
			fmt.Fprintf(&b, " tags=%s", strings.Join(c.Tags, ","))
		}
		desc := c.Description
		if desc == "" && c.SingleSkill {
			desc = c.AgentDescription
		}
		if desc != "" {
			fmt.Fprintf(&b, ": %s", strings.ReplaceAll(text.Cut(desc, maxDescriptionBytes), "\n", " "))
		}
		b.WriteByte('\n')
	}
	b.WriteString(`
Classify the request and answer with ONE JSON object and nothing else:
{"primaryIntent": "snake_case name of what the user wants",
 "intentConfidence": 0.0 to 1.0, how sure you are that the target serves the primary intent,
 "targetAgent": "an agent of the list, or \"\" when no capability fits",
 "targetCapability": "a capability of that agent, or \"\"",
 "secondaryIntents": ["other intents of a multi-part request"],
 "secondaryTargets": [{"agent": "...", "capability": "..."}],
 "alternatives": [{"agent": "...", "capability": "...", "confidence": 0.0 to 1.0}]}
secondaryTargets go with secondaryIntents, one each. alternatives are other capabilities that could serve the primary intent instead, best first. Be honest about confidence: below 0.6 when the request is vague, and list the close alternatives when several capabilities fit equally.`)
	return b.String()
}

// answer is the JSON a model answers, as decoded.
type answer struct {
	PrimaryIntent    string   `json:"primaryIntent"`
	IntentConfidence *float64 `json:"intentConfidence"`
	TargetAgent      string   `json:"targetAgent"`
	TargetCapability string   `json:"targetCapability"`
	SecondaryIntents []string `json:"secondaryIntents"`
	SecondaryTargets []Target `json:"secondaryTargets"`
	Alternatives     []struct {
		Agent      string   `json:"agent"`
		Capability string   `json:"capability"`
		Confidence *float64 `json:"confidence"`
	} `json:"alternatives"`
}

// ParseAnswer checks a model's answer against the candidates it was shown
// and returns it as a Classification: one JSON object (a ```json fence
// around it is tolerated), a confidence within 0..1, a target that is a
// candidate (agent names matched ignoring case) or none, secondary targets
// and alternatives that are candidates, at most 10 of each. Anything else
// is a *BadAnswerError saying what was wrong.
func ParseAnswer(content string, cands []Candidate) (*Classification, error) {
	bad := func(format string, args ...any) error {
		return &BadAnswerError{Reason: fmt.Sprintf(format, args...), Answer: text.Cut(content, 200)}
	}
	raw := strings.TrimSpace(content)
	start, end := strings.IndexByte(raw, '{'), strings.LastIndexByte(raw, '}')
	if start < 0 || end < start {
		return nil, bad("no JSON object")
	}
	var a answer
	if err := json.Unmarshal([]byte(raw[start:end+1]), &a); err != nil {
		return nil, bad("not a valid JSON object: %v", err)
	}
	conf := func(field string, f *float64) (float64, error) {
		switch {
		case f == nil:
			return 0, bad("%s is missing", field)
		case math.IsNaN(*f) || *f < 0 || *f > 1:
			return 0, bad("%s must be within 0..1, got %v", field, *f)
		}
		return round2(*f), nil
	}
	target := func(field string, t Target) (Candidate, error) {
		for _, c := range cands {
			if strings.EqualFold(c.Agent, t.Agent) && c.Skill == t.Capability {
				return c, nil
			}
		}
		return Candidate{}, bad("%s %s/%s is not an agent and capability of the list", field, t.Agent, t.Capability)
	}
	out := &Classification{Classifier: "llm", SecondaryIntents: []string{}, SecondaryTargets: []Target{}}
	c, err := conf("intentConfidence", a.IntentConfidence)
	if err != nil {
		return nil, err
	}
	if len(a.SecondaryTargets) > maxListed || len(a.Alternatives) > maxListed {
		return nil, bad("at most %d secondaryTargets and %d alternatives, got %d and %d", maxListed, maxListed, len(a.SecondaryTargets), len(a.Alternatives))
	}
	if a.TargetAgent == "" && a.TargetCapability == "" {
		out.PrimaryIntent = text.Cut(a.PrimaryIntent, maxIntentBytes)
		return out, nil // none fits: the confidence is in no routing
	}
	p, err := target("target", Target{Agent: a.TargetAgent, Capability: a.TargetCapability})
	if err != nil {
		return nil, err
	}
	out.PrimaryIntent = cmp.Or(text.Cut(strings.TrimSpace(a.PrimaryIntent), maxIntentBytes), p.Intent())
	out.IntentConfidence, out.TargetAgent, out.TargetCapability = c, p.Agent, p.Skill
	for i, t := range a.SecondaryTargets {
		sc, err := target(fmt.Sprintf("secondaryTargets[%d]", i), t)
		if err != nil {
			return nil, err
		}
		intent := sc.Intent()
		if i < len(a.SecondaryIntents) && strings.TrimSpace(a.SecondaryIntents[i]) != "" {
			intent = text.Cut(strings.TrimSpace(a.SecondaryIntents[i]), maxIntentBytes)
		}
		out.SecondaryIntents = append(out.SecondaryIntents, intent)
		out.SecondaryTargets = append(out.SecondaryTargets, sc.Target())
	}
	seen := map[Target]bool{p.Target(): true}
	for i, alt := range a.Alternatives {
		ac, err := target(fmt.Sprintf("alternatives[%d]", i), Target{Agent: alt.Agent, Capability: alt.Capability})
		if err != nil {
			return nil, err
		}
		f, err := conf(fmt.Sprintf("alternatives[%d].confidence", i), alt.Confidence)
		if err != nil {
			return nil, err
		}
		if !seen[ac.Target()] {
			seen[ac.Target()] = true
			out.Alternatives = append(out.Alternatives, Routing{Intent: ac.Intent(), Agent: ac.Agent, Capability: ac.Skill, Confidence: f})
		}
	}
	slices.SortStableFunc(out.Alternatives, func(x, y Routing) int { return cmp.Compare(y.Confidence, x.Confidence) })
	return out, nil
}
