// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package intent_test

import (
	"errors"
	"math"
	"testing"

	"github.com/a2abus/a2abus/pkg/intent"
)

// cls is a classification of primary a/s at conf with alternatives.
func cls(a, s string, conf float64, alts ...intent.Routing) *intent.Classification {
	return &intent.Classification{PrimaryIntent: s, IntentConfidence: conf, TargetAgent: a, TargetCapability: s, Alternatives: alts}
}

func alt(a, s string, conf float64) intent.Routing {
	return intent.Routing{Intent: s, Agent: a, Capability: s, Confidence: conf}
}

func TestDecide(t *testing.T) {
	b := intent.DefaultBounds() // threshold 0.6, margin 0.1, floor 0.2
	for _, tc := range []struct {
		name   string
		c      *intent.Classification
		mayAsk bool
		want   intent.Decision
		offers int
	}{
		{"confident", cls("A", "x", 0.8, alt("B", "y", 0.5)), true, intent.DecisionRoute, 1},
		{"at the threshold", cls("A", "x", 0.6), true, intent.DecisionRoute, 1},
		{"below the threshold", cls("A", "x", 0.59), true, intent.DecisionClarify, 1},
		{"at the floor", cls("A", "x", 0.2), true, intent.DecisionClarify, 1},
		{"below the floor", cls("A", "x", 0.19, alt("B", "y", 0.18)), true, intent.DecisionDecline, 0},
		{"no target", &intent.Classification{IntentConfidence: 0.9}, true, intent.DecisionDecline, 0},
		{"close rival", cls("A", "x", 0.8, alt("B", "y", 0.7)), true, intent.DecisionChoose, 2},
		{"close rivals, capped", cls("A", "x", 0.5, alt("B", "y", 0.5), alt("C", "z", 0.45), alt("D", "w", 0.44), alt("E", "v", 0.41), alt("F", "u", 0.4)), true, intent.DecisionChoose, intent.MaxOptions},
		{"close rival below the floor", cls("A", "x", 0.25, alt("B", "y", 0.19)), true, intent.DecisionClarify, 1},
		{"rival repeating the primary", cls("A", "x", 0.8, alt("A", "x", 0.8)), true, intent.DecisionRoute, 1},
		{"no more questions: close rival", cls("A", "x", 0.8, alt("B", "y", 0.75)), false, intent.DecisionRoute, 1},
		{"no more questions: unsure", cls("A", "x", 0.3), false, intent.DecisionRoute, 1},
		{"no more questions: nothing fits", cls("A", "x", 0.1), false, intent.DecisionDecline, 0},
	} {
		d, rs := intent.Decide(tc.c, b, tc.mayAsk)
		if d != tc.want || len(rs) != tc.offers {
			t.Errorf("%s: %s %v, want %s with %d routings", tc.name, d, rs, tc.want, tc.offers)
		}
		if len(rs) > 0 && rs[0].Agent != tc.c.TargetAgent {
			t.Errorf("%s: the first routing is %v, not the primary", tc.name, rs[0])
		}
	}
}

func TestBoundsValidate(t *testing.T) {
	if err := intent.DefaultBounds().Validate(); err != nil {
		t.Fatal(err)
	}
	for _, b := range []intent.Bounds{
		{Threshold: 0, Margin: 0.1, Floor: 0},
		{Threshold: 1.1, Margin: 0.1, Floor: 0.2},
		{Threshold: math.NaN(), Margin: 0.1, Floor: 0.2},
		{Threshold: 0.5, Margin: 0.1, Floor: 0.6},
		{Threshold: 0.5, Margin: 0.1, Floor: -0.1},
		{Threshold: 0.5, Margin: 1, Floor: 0.1},
		{Threshold: 0.5, Margin: -0.1, Floor: 0.1},
	} {
		if err := b.Validate(); !errors.Is(err, intent.ErrInvalidOptions) {
			t.Errorf("%+v: %v", b, err)
		}
	}
}
