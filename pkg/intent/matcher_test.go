// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package intent_test

import (
	"context"
	"reflect"
	"slices"
	"testing"

	"github.com/a2abus/a2abus/pkg/intent"
)

func TestTokens(t *testing.T) {
	for in, want := range map[string][]string{
		"Compute the NPV of these cash flows, please!": {"comput", "npv", "cash", "flow"},
		"computed computing computes":                  {"comput", "comput", "comput"},
		"npvCalc and summaryReport":                    {"npv", "calc", "summary", "report"},
		"studies classes 2026 a b":                     {"study", "class"},
		"What is it?":                                  nil,
		"Übersetze den Text ins Französische":          {"übersetz", "den", "text", "ins", "französisch"},
	} {
		if got := intent.Tokens(in); !slices.Equal(got, want) {
			t.Errorf("Tokens(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestMatcher: the keyword matcher on a small mesh routes a clear request
// to its skill, finds the second part of a two-part request, finds the
// rival reading of an ambiguous one, and finds nothing for a request no
// card speaks of.
func TestMatcher(t *testing.T) {
	type want struct {
		agent, skill   string
		minConf        float64
		maxConf        float64
		decision       intent.Decision
		secondary      []intent.Target
		alternativesTo []string // capabilities among the alternatives
	}
	for q, w := range map[string]want{
		"Compute the net present value of these cash flows: -1000, 300, 400, 500 at 10%": {agent: "Analyst", skill: "npv", minConf: 0.7, maxConf: 0.9,
			decision: intent.DecisionRoute, alternativesTo: []string{"projection"}},
		"Research the history of the Roman empire": {agent: "ResearchAgent", skill: "research", minConf: 0.6, maxConf: 0.8, decision: intent.DecisionRoute},
		"Translate 'good morning' into French":     {agent: "Translator", skill: "translate", minConf: 0.6, maxConf: 0.8, decision: intent.DecisionRoute},
		"Compute the NPV of the cash flows and write a report": {agent: "Analyst", skill: "npv", minConf: 0.6, maxConf: 0.8, decision: intent.DecisionRoute,
			secondary: []intent.Target{{Agent: "Writer", Capability: "document"}}, alternativesTo: []string{"projection"}},
		"cash flows": {agent: "Analyst", skill: "npv", minConf: 0.4, maxConf: 0.5, decision: intent.DecisionChoose, alternativesTo: []string{"projection"}},
		"I want to know more about the quarterly numbers of our northern branch and the staff survey of last year": {
			agent: "Analyst", skill: "projection", minConf: 0.3, maxConf: 0.59, decision: intent.DecisionClarify},
		"What's the weather tomorrow in Paris?": {decision: intent.DecisionDecline},
		"":                                      {decision: intent.DecisionDecline},
	} {
		c, err := intent.Matcher{}.Classify(context.Background(), intent.Request{Text: q, Candidates: testCandidates()})
		if err != nil {
			t.Fatal(err)
		}
		d, _ := intent.Decide(c, intent.DefaultBounds(), true)
		var alts []string
		for _, a := range c.Alternatives {
			alts = append(alts, a.Capability)
		}
		switch {
		case c.TargetAgent != w.agent || c.TargetCapability != w.skill || d != w.decision:
			t.Errorf("%q: %s/%s %s, want %s/%s %s (%+v)", q, c.TargetAgent, c.TargetCapability, d, w.agent, w.skill, w.decision, c)
		case w.agent != "" && (c.IntentConfidence < w.minConf || c.IntentConfidence > w.maxConf):
			t.Errorf("%q: confidence %v, want %v..%v", q, c.IntentConfidence, w.minConf, w.maxConf)
		case !slices.Equal(c.SecondaryTargets, append([]intent.Target{}, w.secondary...)):
			t.Errorf("%q: secondary targets %v, want %v", q, c.SecondaryTargets, w.secondary)
		case !slices.Equal(alts, w.alternativesTo):
			t.Errorf("%q: alternatives %v, want %v", q, alts, w.alternativesTo)
		case c.Classifier != "matcher" || len(c.SecondaryIntents) != len(c.SecondaryTargets):
			t.Errorf("%q: %+v", q, c)
		}
		if w.agent == "" && (c.IntentConfidence != 0 || c.PrimaryIntent != "") {
			t.Errorf("%q: no routing fits, yet %+v", q, c)
		}
	}
}

// TestMatcherIntentNames: the primary intent is the skill's name in
// snake_case, the secondary ones too.
func TestMatcherIntentNames(t *testing.T) {
	c := intent.Match(intent.Request{Text: "Compute the NPV of the cash flows and write a report", Candidates: testCandidates()})
	if c.PrimaryIntent != "net_present_value" || !slices.Equal(c.SecondaryIntents, []string{"write_document"}) {
		t.Fatalf("%+v", c)
	}
}

// TestMatcherDeterministic: the same request and candidates classify the
// same, every time.
func TestMatcherDeterministic(t *testing.T) {
	req := intent.Request{Text: "cash flows and a report in French", Candidates: testCandidates()}
	first := intent.Match(req)
	for range 20 {
		if got := intent.Match(req); !reflect.DeepEqual(got, first) {
			t.Fatalf("%+v, then %+v", first, got)
		}
	}
}

// TestMatcherWeights: a word of the skill counts more than a word of the
// agent's name, and the description of a one-skill agent is read.
func TestMatcherWeights(t *testing.T) {
	cands := []intent.Candidate{
		{Agent: "ReportBot", Skill: "draw", Name: "Draw", Description: "Draws charts."},
		{Agent: "Painter", Skill: "report", Name: "Report", Description: "Writes reports."},
		{Agent: "Solo", Skill: "go", AgentDescription: "Plans holidays.", SingleSkill: true},
	}
	if c := intent.Match(intent.Request{Text: "a report", Candidates: cands}); c.TargetAgent != "Painter" {
		t.Errorf("a report: %+v", c)
	}
	if c := intent.Match(intent.Request{Text: "plan my holidays", Candidates: cands}); c.TargetAgent != "Solo" {
		t.Errorf("holidays: %+v", c)
	}
}
