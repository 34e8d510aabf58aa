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
	sc, err := rn.scope()
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

func (rn *runner) scope() (*scope, error) {
	var input any
	if err := json.Unmarshal(rn.run.Input, &input); err != nil {
		return nil, fmt.Errorf("decode the run's input: %w", err)
	}
	sc := &scope{input: input, request: rn.run.Request, outputs: map[string]*Output{}, limit: rn.e.opts.MaxRenderBytes}
	for id, st := range rn.snapshot() {
		if st.Phase == PhaseSucceeded && st.Output != nil {
			sc.outputs[id] = st.Output
		}
	}
	return sc, nil
}

// handoff is the handoff context of step s: the run's user context and
// constraints, s's position, and the agents and outputs of the steps that
// succeeded in the nodes before s's, in workflow order.
func (rn *runner) handoff(s *Step) *Handoff {
	idx, count := rn.position(s)
	h := &Handoff{Version: HandoffVersion, SessionID: rn.run.SessionID, UserID: rn.run.UserID, OriginalRequest: rn.run.Request,
		Workflow: rn.run.Workflow.Name, RunID: rn.run.ID, Step: s.ID, WorkflowPosition: position(idx, count, s),
		StepIndex: idx, StepCount: count, PriorAgents: []string{rn.run.Caller}, Constraints: rn.run.Constraints}
	steps := rn.snapshot()
	for _, n := range rn.run.Workflow.Steps {
		members := []*Step{n.Step}
		if n.Group != nil {
			members = n.Group.Steps
		}
		mine := false
		for _, m := range members {
			mine = mine || m.ID == s.ID
		}
		if mine {
			break
		}
		for _, m := range members {
			st := steps[m.ID]
			if st == nil || st.Phase != PhaseSucceeded || st.Output == nil {
				continue
			}
			if h.PriorOutputs == nil {
				h.PriorOutputs = map[string]*Output{}
			}
			o := *st.Output
			o.Text = cut(o.Text, rn.e.opts.MaxHandoffText)
			h.PriorOutputs[m.ID] = &o
			h.PriorAgents = append(h.PriorAgents, o.Agent)
		}
	}
	return h
}
