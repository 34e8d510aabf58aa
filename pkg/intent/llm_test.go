// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package intent_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/a2abus/a2abus/internal/llmtest"
	"github.com/a2abus/a2abus/pkg/intent"
	"github.com/a2abus/a2abus/pkg/llm"
)

const goodAnswer = `{"primaryIntent": "financial_projection", "intentConfidence": 0.85, "targetAgent": "Analyst", "targetCapability": "projection",
 "secondaryIntents": ["document_generation"], "secondaryTargets": [{"agent": "Writer", "capability": "document"}],
 "alternatives": [{"agent": "Analyst", "capability": "npv", "confidence": 0.3}, {"agent": "ResearchAgent", "capability": "research", "confidence": 0.5}]}`

func TestParseAnswer(t *testing.T) {
	c, err := intent.ParseAnswer(goodAnswer, testCandidates())
	if err != nil {
		t.Fatal(err)
	}
	if c.PrimaryIntent != "financial_projection" || c.IntentConfidence != 0.85 || c.TargetAgent != "Analyst" || c.TargetCapability != "projection" ||
		len(c.SecondaryTargets) != 1 || c.SecondaryTargets[0] != (intent.Target{Agent: "Writer", Capability: "document"}) ||
		len(c.SecondaryIntents) != 1 || c.SecondaryIntents[0] != "document_generation" || c.Classifier != "llm" ||
		len(c.Alternatives) != 2 || c.Alternatives[0].Capability != "research" || c.Alternatives[1].Intent != "net_present_value" {
		t.Fatalf("%+v", c)
	}

	// Tolerated: a fence, prose around the object, an agent's name in
	// another case, a missing intent name, no routing at all.
	c, err = intent.ParseAnswer("Here it is:\n```json\n{\"intentConfidence\": 1, \"targetAgent\": \"analyst\", \"targetCapability\": \"npv\"}\n```", testCandidates())
	if err != nil || c.TargetAgent != "Analyst" || c.PrimaryIntent != "net_present_value" || c.IntentConfidence != 1 {
		t.Fatalf("fenced: %v %+v", err, c)
	}
	c, err = intent.ParseAnswer(`{"primaryIntent": "weather_forecast", "intentConfidence": 0.9, "targetAgent": "", "targetCapability": ""}`, testCandidates())
	if err != nil || c.TargetAgent != "" || c.IntentConfidence != 0 || c.PrimaryIntent != "weather_forecast" {
		t.Fatalf("none fits: %v %+v", err, c)
	}

	for _, tc := range []struct{ answer, reason string }{
		{"I think the analyst should do it.", "no JSON object"},
		{`{"intentConfidence": 0.8, "targetAgent": "Analyst",}`, "not a valid JSON object"},
		{`{"intentConfidence": "high", "targetAgent": "Analyst", "targetCapability": "npv"}`, "not a valid JSON object"},
		{`{"targetAgent": "Analyst", "targetCapability": "npv"}`, "intentConfidence is missing"},
		{`{"intentConfidence": 1.5, "targetAgent": "Analyst", "targetCapability": "npv"}`, "intentConfidence must be within 0..1, got 1.5"},
		{`{"intentConfidence": -0.1, "targetAgent": "Analyst", "targetCapability": "npv"}`, "intentConfidence must be within 0..1, got -0.1"},
		{`{"intentConfidence": 0.9, "targetAgent": "Weatherman", "targetCapability": "forecast"}`, "target Weatherman/forecast is not an agent and capability of the list"},
		{`{"intentConfidence": 0.9, "targetAgent": "Analyst", "targetCapability": "document"}`, "target Analyst/document is not an agent and capability of the list"},
		{`{"intentConfidence": 0.9, "targetAgent": "", "targetCapability": "npv"}`, "target /npv is not an agent"},
		{`{"intentConfidence": 0.9, "targetAgent": "Analyst", "targetCapability": "npv", "secondaryTargets": [{"agent": "Nobody", "capability": "x"}]}`,
			"secondaryTargets[0] Nobody/x is not"},
		{`{"intentConfidence": 0.9, "targetAgent": "Analyst", "targetCapability": "npv", "alternatives": [{"agent": "Writer", "capability": "document", "confidence": 2}]}`,
			"alternatives[0].confidence must be within 0..1, got 2"},
		{`{"intentConfidence": 0.9, "targetAgent": "Analyst", "targetCapability": "npv", "alternatives": [{"agent": "Writer", "capability": "document"}]}`,
			"alternatives[0].confidence is missing"},
		{`{"intentConfidence": 0.9, "targetAgent": "Analyst", "targetCapability": "npv", "alternatives": [` + strings.Repeat(`{"agent": "Writer", "capability": "document", "confidence": 0.1},`, 10) +
			`{"agent": "Writer", "capability": "document", "confidence": 0.1}]}`, "at most 10 secondaryTargets and 10 alternatives, got 0 and 11"},
	} {
		_, err := intent.ParseAnswer(tc.answer, testCandidates())
		var be *intent.BadAnswerError
		if !errors.As(err, &be) || !errors.Is(err, intent.ErrBadAnswer) || !strings.Contains(be.Reason, tc.reason) {
			t.Errorf("%s: %v, want a BadAnswerError saying %q", tc.answer, err, tc.reason)
		}
	}
}

// TestLLMClassifier: the prompt lists the candidates; an answer that
// cannot be used goes back to the model once with the reason, and a second
// bad answer is a BadAnswerError; a model that is down is its error.
func TestLLMClassifier(t *testing.T) {
	ctx := context.Background()
	req := intent.Request{Text: "Project our revenue for the next three years and write it up", Candidates: testCandidates()}
	srv := llmtest.New(t,
		llmtest.Reply{Content: "The Analyst, clearly.", Expect: func(r llmtest.Request) error {
			sys := r.Messages[0].Content
			for _, c := range testCandidates() {
				if !strings.Contains(sys, fmt.Sprintf("agent=%s capability=%s", c.Agent, c.Skill)) {
					return fmt.Errorf("the prompt does not list %s/%s:\n%s", c.Agent, c.Skill, sys)
				}
			}
			if r.Last().Content != req.Text {
				return fmt.Errorf("the user message is %q", r.Last().Content)
			}
			return nil
		}},
		llmtest.Reply{Content: goodAnswer, Expect: func(r llmtest.Request) error {
			if last := r.Last(); last.Role != llm.RoleUser || !strings.Contains(last.Content, "no JSON object") {
				return fmt.Errorf("the second request does not say what was wrong: %+v", last)
			}
			return nil
		}},
		llmtest.Reply{Content: `{"intentConfidence": 7}`},
		llmtest.Reply{Content: `{"intentConfidence": 0.7, "targetAgent": "Ghost", "targetCapability": "boo"}`},
	)
	cl := &intent.LLMClassifier{Model: llmtest.Client(t, srv.URL, "m")}
	c, err := cl.Classify(ctx, req)
	if err != nil || c.TargetCapability != "projection" || c.IntentConfidence != 0.85 {
		t.Fatalf("%v %+v", err, c)
	}
	_, err = cl.Classify(ctx, req)
	var be *intent.BadAnswerError
	if !errors.As(err, &be) || !strings.Contains(be.Reason, "Ghost/boo") {
		t.Fatalf("two bad answers: %v", err)
	}
	if srv.Remaining() != 0 {
		t.Fatalf("%d replies left", srv.Remaining())
	}
	srv.Close()
	if _, err := cl.Classify(ctx, req); !errors.Is(err, llm.ErrUnavailable) {
		t.Fatalf("model down: %v", err)
	}
	if _, err := (&intent.LLMClassifier{}).Classify(ctx, req); !errors.Is(err, intent.ErrInvalidOptions) {
		t.Fatalf("no model: %v", err)
	}
}

// TestLLMPromptBound: with more candidates than the prompt lists, those
// the matcher finds closest are listed first, and no more than the bound.
func TestLLMPromptBound(t *testing.T) {
	var cands []intent.Candidate
	for i := range 100 {
		cands = append(cands, intent.Candidate{Agent: fmt.Sprintf("Filler%03d", i), Skill: "noop", Description: "Does nothing at all."})
	}
	cands = append(cands, testCandidates()...)
	answer := `{"intentConfidence": 0.9, "targetAgent": "Analyst", "targetCapability": "projection", "secondaryTargets": [{"agent": "Writer", "capability": "document"}]}`
	srv := llmtest.New(t, llmtest.Reply{Content: answer, Expect: func(r llmtest.Request) error {
		sys := r.Messages[0].Content
		if n := strings.Count(sys, "\n- agent="); n != 10 {
			return fmt.Errorf("%d candidates listed, want 10", n)
		}
		if !strings.Contains(sys, "agent=Analyst capability=projection") || !strings.Contains(sys, "agent=Writer capability=document") {
			return fmt.Errorf("the closest candidates are not listed:\n%s", sys)
		}
		return nil
	}})
	cl := &intent.LLMClassifier{Model: llmtest.Client(t, srv.URL, "m"), Candidates: 10}
	if _, err := cl.Classify(context.Background(), intent.Request{Text: "a financial projection of revenue, written up as a report", Candidates: cands}); err != nil {
		t.Fatal(err)
	}
}
