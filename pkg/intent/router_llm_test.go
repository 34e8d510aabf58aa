// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package intent_test

import (
	"strings"
	"testing"

	"github.com/a2abus/a2abus/internal/llmtest"
	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/intent"
)

// TestRouterOnScriptedModel: with a model classifying, the route skill
// routes a confident classification, asks to clarify an unsure one, offers
// close alternatives, declines when the model finds no fit, asks the model
// again on the classification of the next turn, and — when the model
// answers nonsense twice — classifies with the matcher, saying so.
func TestRouterOnScriptedModel(t *testing.T) {
	srv := llmtest.New(t)
	fc := newFakeCaller()
	r := newRouter(t, fc, func(o *intent.Options) {
		o.Classifier = &intent.LLMClassifier{Model: llmtest.Client(t, srv.URL, "m")}
	})

	srv.Add(llmtest.Reply{Content: `{"primaryIntent": "financial_projection", "intentConfidence": 0.85, "targetAgent": "Analyst", "targetCapability": "projection",
		"secondaryIntents": ["document_generation"], "secondaryTargets": [{"agent": "Writer", "capability": "document"}]}`})
	res := handle(t, r, firstTurn("Where will our revenue be in three years? Put it in a memo."))
	rep := report(t, res)
	if len(fc.invoked) != 1 || fc.invoked[0].Skill != "projection" || rep.Decision != intent.DecisionRoute || rep.Classifier != "llm" ||
		rep.PrimaryIntent != "financial_projection" || rep.IntentConfidence != 0.85 || len(rep.SecondaryTargets) != 1 || rep.SecondaryIntents[0] != "document_generation" {
		t.Fatalf("route: %+v %+v", fc.invoked, rep)
	}

	srv.Add(llmtest.Reply{Content: `{"primaryIntent": "analysis", "intentConfidence": 0.4, "targetAgent": "ResearchAgent", "targetCapability": "research"}`})
	first := firstTurn("Look into it")
	res = handle(t, r, first)
	if q := asks(t, res, intent.DecisionClarify); !strings.Contains(q.Text, "Research (ResearchAgent)") {
		t.Fatalf("clarify: %+v", q)
	}
	srv.Add(llmtest.Reply{Content: `{"primaryIntent": "research", "intentConfidence": 0.9, "targetAgent": "ResearchAgent", "targetCapability": "research"}`,
		Expect: func(req llmtest.Request) error {
			if got := req.Last().Content; got != "Look into it\nThe history of KEDA" {
				t.Errorf("the second turn classifies %q", got)
			}
			return nil
		}})
	handle(t, r, nextTurn(first, res, "The history of KEDA"))
	if len(fc.invoked) != 2 || fc.invoked[1].Skill != "research" {
		t.Fatalf("after clarifying: %+v", fc.invoked)
	}

	srv.Add(llmtest.Reply{Content: `{"primaryIntent": "writing", "intentConfidence": 0.8, "targetAgent": "Writer", "targetCapability": "document",
		"alternatives": [{"agent": "Translator", "capability": "translate", "confidence": 0.75}, {"agent": "Analyst", "capability": "npv", "confidence": 0.1}]}`})
	q := asks(t, handle(t, r, firstTurn("Turn my notes into proper English")), intent.DecisionChoose)
	if len(q.Options) != 2 || q.Options[0].Label != "Write document (Writer)" || q.Options[1].Label != "Translate (Translator)" {
		t.Fatalf("choose: %+v", q)
	}

	srv.Add(llmtest.Reply{Content: `{"primaryIntent": "weather_forecast", "intentConfidence": 0.95, "targetAgent": "", "targetCapability": ""}`})
	res = handle(t, r, firstTurn("Will it rain tomorrow?"))
	if rep := report(t, res); rep.Decision != intent.DecisionDecline || rep.PrimaryIntent != "weather_forecast" || res.Question != nil ||
		!strings.HasPrefix(a2a.MessageText(res.Message), "None of the agents") {
		t.Fatalf("decline: %+v", rep)
	}

	srv.Add(llmtest.Reply{Content: "Analyst!"}, llmtest.Reply{Content: `{"intentConfidence": 3, "targetAgent": "Analyst", "targetCapability": "npv"}`})
	res = handle(t, r, firstTurn("Compute the net present value of these cash flows at 10%"))
	rep = report(t, res)
	if rep.Classifier != "matcher" || rep.TargetCapability != "npv" || len(rep.Warnings) != 1 || !strings.Contains(rep.Warnings[0], "intentConfidence must be within 0..1") ||
		len(res.Warnings) != 1 || res.Warnings[0] != rep.Warnings[0] {
		t.Fatalf("fallback: %+v, warnings %q", rep, res.Warnings)
	}
	if srv.Remaining() != 0 {
		t.Fatalf("%d replies left", srv.Remaining())
	}
}
