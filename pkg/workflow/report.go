// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package workflow

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"sort"
	"strings"
	"time"

	"github.com/a2abus/a2abus/pkg/a2a"
)

// Status is a run's outcome.
type Status string

// The outcomes of a run.
const (
	// StatusSuccess: every required step succeeded (and no step reported a
	// partial result).
	StatusSuccess Status = "SUCCESS"
	// StatusPartial: every required step succeeded, but an optional step
	// failed or timed out, a quorum group lost members, or a step's own
	// result was PARTIAL; the warnings name them and the results are kept.
	StatusPartial Status = "PARTIAL"
	// StatusError: a required step (or a group's quorum) failed; FailedStep
	// names it. The results of the steps that ran are kept.
	StatusError Status = "ERROR"
	// StatusRunning: the run has not ended (Show of a run in progress).
	StatusRunning Status = "RUNNING"
)

// Report is the aggregated outcome of a run: its steps in workflow order
// (not arrival order), each with its own confidence, the warnings, the
// conflicting values between steps and the overall outcome.
type Report struct {
	RunID    string `json:"runId"`
	Workflow string `json:"workflow"`
	Status   Status `json:"status"`
	// FailedStep names the step (or group) that made the run ERROR; Error says why.
	FailedStep string   `json:"failedStep,omitempty"`
	Error      string   `json:"error,omitempty"`
	Warnings   []string `json:"warnings,omitempty"`
	// Confidence is the lowest confidence of the steps that succeeded.
	Confidence  a2a.Confidence `json:"confidence,omitempty"`
	Steps       []StepReport   `json:"steps"`
	Conflicts   []Conflict     `json:"conflicts,omitempty"`
	SessionID   string         `json:"sessionId,omitempty"`
	UserID      string         `json:"userId,omitempty"`
	StepSession string         `json:"stepSession"`
	Created     time.Time      `json:"created"`
	Ended       time.Time      `json:"ended,omitzero"`
}

// StepReport is one step of a Report.
type StepReport struct {
	ID    string `json:"id"`
	Title string `json:"title,omitempty"`
	// Group is the parallel group the step belongs to ("" for none).
	Group    string     `json:"group,omitempty"`
	Agent    string     `json:"agent"`
	Skill    string     `json:"skill"`
	Optional bool       `json:"optional,omitempty"`
	Phase    Phase      `json:"phase"`
	Attempts int        `json:"attempts"`
	TaskIDs  []string   `json:"taskIds,omitempty"`
	Started  time.Time  `json:"started,omitzero"`
	Ended    time.Time  `json:"ended,omitzero"`
	Output   *Output    `json:"output,omitempty"`
	Error    *a2a.Error `json:"error,omitempty"`
}

// Duration is the time from the step's start to its end (0 until both).
func (s *StepReport) Duration() time.Duration {
	if s.Started.IsZero() || s.Ended.IsZero() {
		return 0
	}
	return s.Ended.Sub(s.Started)
}

// Conflict is one data field two or more steps gave different values for.
// It is reported, never hidden; Preferred is the step of the highest
// confidence, "" when the highest is shared (the user must choose).
type Conflict struct {
	Field     string          `json:"field"`
	Values    []ConflictValue `json:"values"`
	Preferred string          `json:"preferred,omitempty"`
}

// ConflictValue is one step's value of a conflicting field.
type ConflictValue struct {
	Step       string         `json:"step"`
	Agent      string         `json:"agent"`
	Value      any            `json:"value"`
	Confidence a2a.Confidence `json:"confidence,omitempty"`
}

// confidenceRank orders confidences; unknown ones rank lowest.
func confidenceRank(c a2a.Confidence) int {
	switch c {
	case a2a.ConfidenceHigh:
		return 4
	case a2a.ConfidenceMedium:
		return 3
	case a2a.ConfidenceLow:
		return 2
	case a2a.ConfidenceSpeculative:
		return 1
	}
	return 0
}

// buildReport aggregates the state of run r, in time linear in its steps.
func buildReport(r *RunState, steps map[string]*StepState) *Report {
	rep := &Report{RunID: r.ID, Workflow: r.Workflow.Name, SessionID: r.SessionID, UserID: r.UserID,
		StepSession: r.StepSession, Created: r.Created, Ended: r.Ended}
	stateOf := func(id string) *StepState { return steps[id] }
	open := false
	for _, n := range r.Workflow.Steps {
		members, group, _ := n.members()
		for _, s := range members {
			st := steps[s.ID]
			if st == nil {
				st = &StepState{ID: s.ID, Phase: PhasePending}
			}
			rep.Steps = append(rep.Steps, stepReport(group, s, st))
		}
		j := judgeNode(n, stateOf)
		rep.Warnings = append(rep.Warnings, j.warnings...)
		if j.failed != "" && rep.FailedStep == "" {
			rep.FailedStep, rep.Error = j.failed, j.err
		}
		open = open || j.open
	}
	rep.Conflicts = conflicts(r.Workflow, steps)
	for _, s := range rep.Steps {
		if s.Output != nil && s.Output.Confidence != "" &&
			(rep.Confidence == "" || confidenceRank(s.Output.Confidence) < confidenceRank(rep.Confidence)) {
			rep.Confidence = s.Output.Confidence
		}
	}
	switch {
	case rep.FailedStep != "":
		rep.Status = StatusError
	case open:
		rep.Status = StatusRunning
	case len(rep.Warnings) > 0:
		rep.Status = StatusPartial
	default:
		rep.Status = StatusSuccess
	}
	return rep
}

// judgement is what one node's steps say about the run: the step (or
// group) that fails it and why, the warnings, and whether a step has not
// ended.
type judgement struct {
	failed, err string
	warnings    []string
	open        bool
}

// judgeNode judges node n from its members' states (stateOf returns nil
// for a step with none): a required step that failed, or a group that
// missed its quorum, fails the run; a failed optional step or quorum
// member, and a partial result, are warnings.
func judgeNode(n *Node, stateOf func(id string) *StepState) judgement {
	var j judgement
	members, group, quorum := n.members()
	byQuorum := quorum > 0 && quorum < len(members)
	succeeded, ended := 0, 0
	var failed []string
	for _, s := range members {
		st := stateOf(s.ID)
		if st == nil {
			j.open = true
			continue
		}
		switch st.Phase {
		case PhaseSucceeded:
			succeeded++
			ended++
			if st.Output != nil && st.Output.Status == a2a.StatusPartial {
				w := fmt.Sprintf("step %s (%s.%s) returned a partial result", s.ID, s.Agent, s.Skill)
				if len(st.Output.Warnings) > 0 {
					w += ": " + strings.Join(st.Output.Warnings, "; ")
				}
				j.warnings = append(j.warnings, w)
			}
		case PhaseFailed:
			ended++
			failed = append(failed, s.ID)
			if byQuorum || s.Optional {
				j.warnings = append(j.warnings, failureText(s, st.Error))
			} else if j.failed == "" {
				j.failed, j.err = s.ID, failureText(s, st.Error)
			}
		case PhaseCanceled:
			ended++
		default:
			j.open = true
		}
	}
	if byQuorum && ended == len(members) && succeeded < quorum && j.failed == "" {
		j.failed = group
		j.err = fmt.Sprintf("group %s reached %d of the %d successes it needs (failed: %s)",
			group, succeeded, quorum, strings.Join(failed, ", "))
	}
	return j
}

// stepReport is step s, of the parallel group group ("" for none), in state st.
func stepReport(group string, s *Step, st *StepState) StepReport {
	sr := StepReport{ID: s.ID, Title: s.Title, Group: group, Agent: s.Agent, Skill: s.Skill, Optional: s.Optional,
		Phase: st.Phase, Attempts: len(st.Attempts), Started: st.Started, Ended: st.Ended, Output: st.Output, Error: st.Error}
	for _, a := range st.Attempts {
		if a.TaskID != "" {
			sr.TaskIDs = append(sr.TaskIDs, a.TaskID)
		}
	}
	return sr
}

// failureText names a step that failed and why: "timed out" for TIMEOUT.
func failureText(s *Step, e *a2a.Error) string {
	what := fmt.Sprintf("step %s (%s.%s)", s.ID, s.Agent, s.Skill)
	if e == nil {
		return what + " failed"
	}
	if e.Code == a2a.CodeTimeout {
		return fmt.Sprintf("%s timed out: %s", what, e.Message)
	}
	return fmt.Sprintf("%s failed: %s: %s", what, e.Code, e.Message)
}

// conflicts compares the top-level fields of the data objects of the steps
// that succeeded (NoCompare steps aside): a field with different values in
// two steps is a conflict. Numbers equal within a relative 1e-9 agree.
func conflicts(w *Workflow, steps map[string]*StepState) []Conflict {
	type entry struct {
		step *Step
		out  *Output
		data map[string]any
	}
	var entries []entry
	for _, s := range w.StepList() {
		st := steps[s.ID]
		if s.NoCompare || st == nil || st.Phase != PhaseSucceeded || st.Output == nil || len(st.Output.Data) == 0 {
			continue
		}
		var m map[string]any
		if json.Unmarshal(st.Output.Data, &m) != nil || m == nil {
			continue
		}
		entries = append(entries, entry{s, st.Output, m})
	}
	fields := map[string]bool{}
	for _, e := range entries {
		for k := range e.data {
			fields[k] = true
		}
	}
	names := make([]string, 0, len(fields))
	for k := range fields {
		names = append(names, k)
	}
	sort.Strings(names)
	var out []Conflict
	for _, f := range names {
		var vals []ConflictValue
		differ := false
		for _, e := range entries {
			v, ok := e.data[f]
			if !ok {
				continue
			}
			if len(vals) > 0 && !sameValue(vals[0].Value, v) {
				differ = true
			}
			vals = append(vals, ConflictValue{Step: e.step.ID, Agent: e.out.Agent, Value: v, Confidence: e.out.Confidence})
		}
		if !differ {
			continue
		}
		c := Conflict{Field: f, Values: vals}
		best, shared := -1, false
		for i, v := range vals {
			switch {
			case best < 0 || confidenceRank(v.Confidence) > confidenceRank(vals[best].Confidence):
				best, shared = i, false
			case confidenceRank(v.Confidence) == confidenceRank(vals[best].Confidence):
				shared = true
			}
		}
		if !shared {
			c.Preferred = vals[best].Step
		}
		out = append(out, c)
	}
	return out
}

func sameValue(a, b any) bool {
	x, okx := a.(float64)
	y, oky := b.(float64)
	if okx && oky {
		return x == y || math.Abs(x-y) <= 1e-9*math.Max(math.Abs(x), math.Abs(y))
	}
	return reflect.DeepEqual(a, b)
}

// Text is the report for people: the outcome, the warnings, each step in
// workflow order with its confidence and output, and the conflicts.
func (r *Report) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Workflow %s (run %s): %s", r.Workflow, r.RunID, r.Status)
	if r.Confidence != "" {
		fmt.Fprintf(&b, ", confidence %s", r.Confidence)
	}
	b.WriteString("\n")
	if r.FailedStep != "" {
		fmt.Fprintf(&b, "Failed: %s — %s\n", r.FailedStep, r.Error)
	}
	for _, w := range r.Warnings {
		fmt.Fprintf(&b, "Warning: %s\n", w)
	}
	for i, s := range r.Steps {
		where := ""
		if s.Group != "" {
			where = " [" + s.Group + "]"
		}
		fmt.Fprintf(&b, "%d. %s%s — %s.%s: %s", i+1, s.ID, where, s.Agent, s.Skill, s.Phase)
		if s.Output != nil && s.Output.Confidence != "" {
			fmt.Fprintf(&b, ", confidence %s", s.Output.Confidence)
		}
		if s.Attempts > 1 {
			fmt.Fprintf(&b, ", %d attempts", s.Attempts)
		}
		if d := s.Duration(); d > 0 {
			fmt.Fprintf(&b, ", %s", d.Round(time.Millisecond))
		}
		b.WriteString("\n")
		if s.Output != nil {
			if t := strings.Join(strings.Fields(s.Output.Text), " "); t != "" {
				fmt.Fprintf(&b, "   %s\n", cut(t, 200))
			}
			if len(s.Output.Data) > 0 {
				fmt.Fprintf(&b, "   data %s\n", cut(string(s.Output.Data), 200))
			}
		}
		if s.Error != nil {
			fmt.Fprintf(&b, "   error %s: %s\n", s.Error.Code, s.Error.Message)
		}
	}
	for _, c := range r.Conflicts {
		var vs []string
		for _, v := range c.Values {
			vs = append(vs, fmt.Sprintf("%s=%s (%s)", v.Step, textOf(v.Value), cmpOr(string(v.Confidence), "no confidence")))
		}
		pref := "equal confidence: ask the user which to use"
		if c.Preferred != "" {
			pref = "prefer " + c.Preferred + ", the higher confidence"
		}
		fmt.Fprintf(&b, "Conflict: %s differs: %s; %s\n", c.Field, strings.Join(vs, ", "), pref)
	}
	return b.String()
}

func cmpOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
