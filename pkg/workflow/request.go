// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package workflow

import (
	"encoding/json"
	"fmt"

	"github.com/a2abus/a2abus/pkg/caller"
)

// request builds the caller request of step s: its templates rendered
// against the run's input, request and the outputs of the steps that
// succeeded, and the handoff context.
func (rn *runner) request(s *Step) (caller.Request, error) {
	sc, err := rn.scope(s)
	if err != nil {
		return caller.Request{}, err
	}
	text, err := sc.renderText(s.Text)
	if err != nil {
		return caller.Request{}, err
	}
	var input json.RawMessage
	if s.Input != nil {
		v, err := sc.renderValue(s.Input)
		if err != nil {
			return caller.Request{}, err
		}
		if input, err = json.Marshal(v); err != nil {
			return caller.Request{}, fmt.Errorf("encode the input: %w", err)
		}
	}
	h, err := json.Marshal(rn.handoff(s))
	if err != nil {
		return caller.Request{}, fmt.Errorf("encode the handoff: %w", err)
	}
	return caller.Request{
		Target: s.Agent, Skill: s.Skill, Text: text, Input: input, SessionID: rn.run.StepSession,
		ContextID: rn.run.ID, Timeout: s.Timeout, CorrelationID: rn.run.ID, Handoff: h,
	}, nil
}

// scope is what step s's templates are rendered against: the run's input
// and request, and the outputs of the steps they refer to that succeeded.
func (rn *runner) scope(s *Step) (*scope, error) {
	var input any
	if err := json.Unmarshal(rn.run.Input, &input); err != nil {
		return nil, fmt.Errorf("decode the run's input: %w", err)
	}
	refs, err := references(s.Text)
	if err != nil {
		return nil, err
	}
	more, err := valueReferences(s.Input)
	if err != nil {
		return nil, err
	}
	sc := &scope{input: input, request: rn.run.Request, outputs: map[string]*Output{}, limit: rn.e.opts.MaxRenderBytes}
	rn.mu.Lock()
	defer rn.mu.Unlock()
	for _, r := range append(refs, more...) {
		if st := rn.steps[r.step]; r.root == rootSteps && st != nil && st.Phase == PhaseSucceeded && st.Output != nil {
			sc.outputs[r.step] = st.Output
		}
	}
	return sc, nil
}

// handoff is the handoff context of step s: the run's user context and
// constraints, s's position, and the agents and outputs of the latest
// Options.MaxHandoffOutputs steps that succeeded in the nodes before s's,
// in workflow order (older ones are left out: a step's handoff does not
// grow with the workflow).
func (rn *runner) handoff(s *Step) *Handoff {
	idx, count := rn.position(s)
	h := &Handoff{Version: HandoffVersion, SessionID: rn.run.SessionID, UserID: rn.run.UserID, OriginalRequest: rn.run.Request,
		Workflow: rn.run.Workflow.Name, RunID: rn.run.ID, Step: s.ID, WorkflowPosition: position(idx, count, s),
		StepIndex: idx, StepCount: count, PriorAgents: []string{rn.run.Caller}, Constraints: rn.run.Constraints}
	type prior struct {
		id  string
		out *Output
	}
	var latest []prior // newest first
	limit := rn.e.opts.MaxHandoffOutputs
	rn.mu.Lock()
	for i := rn.node[s.ID] - 1; i >= 0 && len(latest) < limit; i-- {
		members, _, _ := rn.run.Workflow.Steps[i].members()
		for j := len(members) - 1; j >= 0 && len(latest) < limit; j-- {
			if st := rn.steps[members[j].ID]; st != nil && st.Phase == PhaseSucceeded && st.Output != nil {
				latest = append(latest, prior{members[j].ID, st.Output})
			}
		}
	}
	rn.mu.Unlock()
	for i := len(latest) - 1; i >= 0; i-- {
		if h.PriorOutputs == nil {
			h.PriorOutputs = map[string]*Output{}
		}
		o := *latest[i].out
		o.Text = cut(o.Text, rn.e.opts.MaxHandoffText)
		h.PriorOutputs[latest[i].id] = &o
		h.PriorAgents = append(h.PriorAgents, o.Agent)
	}
	return h
}
