// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package intent

import (
	"encoding/json"

	"github.com/a2abus/a2abus/pkg/a2a"
)

// ReportArtifactID is the id of the artifact that carries the route
// skill's Report in its results.
const ReportArtifactID = "intent-classification"

// Report is the route skill's account of one turn: the classification (its
// fields inline, in the Orchestrator protocol's shape), the decision, and
// what the decision needs to be continued on the task's next turn. It is
// the data of every result of the skill (the artifact ReportArtifactID)
// and, with a question, a data part of the question's message too, so that
// the task's history carries it to whichever replica gets the answer.
type Report struct {
	Classification
	Decision Decision `json:"decision"`
	// Options are the routings offered with DecisionChoose, by option id.
	Options []Option `json:"options,omitempty"`
	// RoutedTask is the task the request was routed to (DecisionRoute);
	// Relayed says the turn ended with that task's own question, relayed:
	// the answer goes back to it.
	RoutedTask string `json:"routedTask,omitempty"`
	Relayed    bool   `json:"relayed,omitempty"`
	// Warnings say what went wrong on the way, such as a model answer that
	// could not be used (the matcher classified instead).
	Warnings []string `json:"warnings,omitempty"`
}

// Option is one routing offered in a question, under the id the answer
// may name.
type Option struct {
	ID string `json:"id"`
	Routing
}

// known reports whether d is one of the decisions.
func (d Decision) known() bool {
	switch d {
	case DecisionRoute, DecisionClarify, DecisionChoose, DecisionDecline:
		return true
	}
	return false
}

// data is rep as a JSON object for a data part.
func (rep *Report) data() map[string]any {
	b, err := json.Marshal(rep)
	if err != nil {
		return map[string]any{"decision": string(rep.Decision)} // plain strings and numbers: cannot happen
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		return map[string]any{"decision": string(rep.Decision)}
	}
	return m
}

// artifact is rep as the result's artifact: one data part.
func (rep *Report) artifact() *a2a.Artifact {
	return &a2a.Artifact{ID: ReportArtifactID, Name: "intent classification", Parts: []*a2a.Part{a2a.NewDataPart(rep.data())}}
}

// ReportFrom returns the Report among artifacts (see ReportArtifactID); ok
// is false when there is none.
func ReportFrom(artifacts []*a2a.Artifact) (rep *Report, ok bool) {
	for _, a := range artifacts {
		if a != nil && a.ID == ReportArtifactID {
			if rep, ok := reportIn(a.Parts); ok {
				return rep, true
			}
		}
	}
	return nil, false
}

// reportIn returns the first data part of parts that is a Report.
func reportIn(parts []*a2a.Part) (*Report, bool) {
	for _, p := range parts {
		if p == nil {
			continue
		}
		d := p.Data()
		if d == nil {
			continue
		}
		b, err := json.Marshal(d)
		if err != nil {
			continue
		}
		rep := &Report{}
		if json.Unmarshal(b, rep) == nil && rep.Decision.known() {
			return rep, true
		}
	}
	return nil, false
}
