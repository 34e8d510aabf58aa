// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package intent

import (
	"fmt"
	"math"
)

// Decision is what the route skill does with a classification.
type Decision string

// The decisions.
const (
	// DecisionRoute: one routing fits with enough confidence; the request
	// goes to it.
	DecisionRoute Decision = "route"
	// DecisionClarify: the best routing is below the threshold; the skill
	// asks the user to say more (TASK_STATE_INPUT_REQUIRED).
	DecisionClarify Decision = "clarify"
	// DecisionChoose: several routings fit about equally; the skill offers
	// them as options (TASK_STATE_INPUT_REQUIRED).
	DecisionChoose Decision = "choose"
	// DecisionDecline: no routing fits; the skill says so, and what the
	// mesh can do (a completed task, not an error).
	DecisionDecline Decision = "decline"
)

// Bounds are the confidences Decide compares with.
type Bounds struct {
	// Threshold: a routing this confident or more is taken
	// (orchestrator.route_threshold).
	Threshold float64
	// Margin: a routing this close to the best one or closer is offered
	// beside it (orchestrator.route_margin).
	Margin float64
	// Floor: a routing less confident than this does not fit
	// (orchestrator.route_floor).
	Floor float64
}

// DefaultBounds are the package's defaults.
func DefaultBounds() Bounds {
	return Bounds{Threshold: DefaultThreshold, Margin: DefaultMargin, Floor: DefaultFloor}
}

// Validate checks 0 ≤ floor ≤ threshold ≤ 1, threshold > 0 and 0 ≤ margin < 1.
func (b Bounds) Validate() error {
	bad := func(what string, v float64, rule string) error {
		return fmt.Errorf("%w: %s must be %s, got %v", ErrInvalidOptions, what, rule, v)
	}
	switch {
	case math.IsNaN(b.Threshold) || b.Threshold <= 0 || b.Threshold > 1:
		return bad("threshold", b.Threshold, "within (0, 1]")
	case math.IsNaN(b.Floor) || b.Floor < 0 || b.Floor > b.Threshold:
		return bad("floor", b.Floor, fmt.Sprintf("within 0..threshold (%v)", b.Threshold))
	case math.IsNaN(b.Margin) || b.Margin < 0 || b.Margin >= 1:
		return bad("margin", b.Margin, "within [0, 1)")
	}
	return nil
}

// epsilon absorbs the float error of comparing confidences rounded to
// two decimals (0.8 - 0.7 is a hair above 0.1).
const epsilon = 1e-9

// Decide decides what to do with c: decline when no routing reaches the
// floor; else, when mayAsk, offer the routings within the margin of the
// best (at least two, at most MaxOptions, each at the floor or above), or
// ask to clarify when the best is below the threshold; else route to the
// best. The routings returned are the options to offer (choose) or the one
// to take (route); none with decline, the best with clarify.
func Decide(c *Classification, b Bounds, mayAsk bool) (Decision, []Routing) {
	p := c.Primary()
	if p.Agent == "" || p.Confidence+epsilon < b.Floor {
		return DecisionDecline, nil
	}
	if !mayAsk {
		return DecisionRoute, []Routing{p}
	}
	close := []Routing{p}
	for _, a := range c.Alternatives {
		if len(close) < MaxOptions && a.Confidence+epsilon >= b.Floor && p.Confidence-a.Confidence <= b.Margin+epsilon && a.Target() != p.Target() {
			close = append(close, a)
		}
	}
	switch {
	case len(close) > 1:
		return DecisionChoose, close
	case p.Confidence+epsilon < b.Threshold:
		return DecisionClarify, close
	}
	return DecisionRoute, close
}
