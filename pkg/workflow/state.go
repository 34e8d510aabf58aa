// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package workflow

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/a2abus/a2abus/memory"
	"github.com/a2abus/a2abus/pkg/a2a"
)

// Phase is where a step stands.
type Phase string

// The phases of a step. Succeeded, Failed and Canceled are final.
const (
	PhasePending   Phase = "pending"
	PhaseRunning   Phase = "running"
	PhaseSucceeded Phase = "succeeded"
	PhaseFailed    Phase = "failed"
	// PhaseCanceled: the step's group reached its quorum first.
	PhaseCanceled Phase = "canceled"
)

// Final reports whether p is a final phase.
func (p Phase) Final() bool {
	return p == PhaseSucceeded || p == PhaseFailed || p == PhaseCanceled
}

// Output is what a step that succeeded produced, as the run keeps it: its
// message text, its data (the first data part of its artifacts), status,
// confidence and warnings.
type Output struct {
	Agent      string           `json:"agent"`
	Skill      string           `json:"skill"`
	TaskID     string           `json:"taskId,omitempty"`
	Status     a2a.ResultStatus `json:"status"`
	Confidence a2a.Confidence   `json:"confidence,omitempty"`
	Text       string           `json:"text,omitempty"`
	Data       json.RawMessage  `json:"data,omitempty"`
	Warnings   []string         `json:"warnings,omitempty"`
}

// templateValue is the output as ${steps.<id>} gives it.
func (o *Output) templateValue() any {
	m := map[string]any{"agent": o.Agent, "status": string(o.Status), "confidence": string(o.Confidence), "text": o.Text}
	if len(o.Data) > 0 {
		var d any
		if json.Unmarshal(o.Data, &d) == nil {
			m["data"] = d
		}
	}
	return m
}

// Attempt is one invocation of a step. Intent is recorded before the task
// is invoked and TaskID right after, so a restarted engine finds the task
// of an attempt whose TaskID it never recorded (see recoverTask).
type Attempt struct {
	N      int              `json:"n"`
	Intent time.Time        `json:"intent"`
	TaskID string           `json:"taskId,omitempty"`
	Ended  time.Time        `json:"ended,omitzero"`
	Status a2a.ResultStatus `json:"status,omitempty"`
	Error  *a2a.Error       `json:"error,omitempty"`
}

// StepState is the durable state of one step of a run.
type StepState struct {
	ID       string     `json:"id"`
	Phase    Phase      `json:"phase"`
	Attempts []*Attempt `json:"attempts,omitempty"`
	Output   *Output    `json:"output,omitempty"`
	Error    *a2a.Error `json:"error,omitempty"`
	Started  time.Time  `json:"started,omitzero"`
	Ended    time.Time  `json:"ended,omitzero"`
}

// clone copies s and its attempts.
func (s *StepState) clone() *StepState {
	c := *s
	c.Attempts = make([]*Attempt, len(s.Attempts))
	for i, a := range s.Attempts {
		ac := *a
		c.Attempts[i] = &ac
	}
	return &c
}

// open returns the last attempt when it has not ended.
func (s *StepState) open() *Attempt {
	if n := len(s.Attempts); n > 0 && s.Attempts[n-1].Ended.IsZero() {
		return s.Attempts[n-1]
	}
	return nil
}

// RunState is the durable state of one run: its workflow (the spec it
// started with, so any engine can resume it), input and context.
type RunState struct {
	ID       string    `json:"id"`
	Workflow *Workflow `json:"workflow"`
	// Digest is the workflow's Digest when the run started ("" for a run
	// stored before digests were kept).
	Digest  string          `json:"digest,omitempty"`
	Input   json.RawMessage `json:"input"`
	Request string          `json:"request,omitempty"`
	// SessionID and UserID are the run's user context (the handoff's).
	SessionID string `json:"sessionId,omitempty"`
	UserID    string `json:"userId,omitempty"`
	// StepSession is the session the steps' tasks run in ("wf-<run id>"):
	// their results and notification turns stay out of the user's
	// conversation, and `a2abus history wf-<run id>` lists the run's calls.
	StepSession string         `json:"stepSession"`
	Constraints map[string]any `json:"constraints,omitempty"`
	// Caller is the caller that invokes the steps: only it can wait for them.
	Caller  string    `json:"caller"`
	Status  Status    `json:"status"`
	Created time.Time `json:"created"`
	Ended   time.Time `json:"ended,omitzero"`
}

// sameWorkflow refuses to resume run r with wf when wf is another
// workflow, or another version of it (its Digest differs from the run's).
func (r *RunState) sameWorkflow(wf *Workflow) error {
	from := func(w *Workflow) string {
		if w.File == "" {
			return ""
		}
		return " (" + w.File + ")"
	}
	if r.Workflow.Name != wf.Name {
		return fmt.Errorf("%w: run %s is a run of workflow %s%s, not of %s%s: give its workflow, or another run id",
			ErrRunMismatch, r.ID, r.Workflow.Name, from(r.Workflow), wf.Name, from(wf))
	}
	digest, err := wf.Digest()
	if err != nil {
		return err
	}
	if r.Digest != "" && r.Digest != digest {
		return fmt.Errorf("%w: run %s started with another version of workflow %s%s (its steps or settings changed since): "+
			"give the version it started with, or another run id", ErrRunMismatch, r.ID, wf.Name, from(wf))
	}
	return nil
}

// Errors of the run state.
var (
	// ErrUnknownRun: no state is stored for the run id (never started, or expired).
	ErrUnknownRun = errors.New("workflow: unknown run")
	// ErrInvalidRunID: a run id breaks its naming rule.
	ErrInvalidRunID = errors.New("workflow: invalid run id")
)

// runIDRule is the rule of run ids; runIDPattern checks it but the length
// (at most 100), checked apart: a counted repetition compiles to a program
// of one step per count, which every process built at start.
const runIDRule = `^[A-Za-z0-9][A-Za-z0-9_.:-]{0,99}$`

var runIDPattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.:-]*$`)

// ValidateRunID reports whether id may name a run: a letter or digit, then
// up to 99 letters, digits, '_', '.', ':' or '-', never "..".
func ValidateRunID(id string) error {
	if len(id) > 100 || !runIDPattern.MatchString(id) || strings.Contains(id, "..") {
		return fmt.Errorf("%w %q: must match %s", ErrInvalidRunID, id, runIDRule)
	}
	return nil
}

// store reads and writes run state, retrying what working memory could not
// answer for a bounded time.
type store struct {
	mem   memory.Memory
	ttl   time.Duration
	bound time.Duration // how long a failing call is retried; 0: memory.DefaultRetryBound
}

// retry runs op with memory.Retry within the store's bound.
func (s store) retry(ctx context.Context, op func(context.Context) error) error {
	return memory.Retry(ctx, cmp.Or(s.bound, memory.DefaultRetryBound), op, nil)
}

func (s store) set(ctx context.Context, key string, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("workflow: encode %s: %w", key, err)
	}
	return s.retry(ctx, func(ctx context.Context) error { return s.mem.Set(ctx, key, data, s.ttl) })
}

func (s store) saveRun(ctx context.Context, r *RunState) error {
	key, err := memory.WorkflowRunKey(r.ID)
	if err == nil {
		err = s.set(ctx, key, r)
	}
	if err != nil {
		return fmt.Errorf("workflow: save run %s: %w", r.ID, err)
	}
	return nil
}

func (s store) saveStep(ctx context.Context, runID string, st *StepState) error {
	key, err := memory.WorkflowStepKey(runID, st.ID)
	if err == nil {
		err = s.set(ctx, key, st)
	}
	if err != nil {
		return fmt.Errorf("workflow: save step %s of run %s: %w", st.ID, runID, err)
	}
	return nil
}

// loadRun returns the run's state, or an error wrapping ErrUnknownRun.
func (s store) loadRun(ctx context.Context, id string) (*RunState, error) {
	key, err := memory.WorkflowRunKey(id)
	if err != nil {
		return nil, fmt.Errorf("workflow: load run %s: %w", id, err)
	}
	var data []byte
	err = s.retry(ctx, func(ctx context.Context) (err error) { data, err = s.mem.Get(ctx, key); return err })
	if errors.Is(err, memory.ErrNotFound) {
		return nil, fmt.Errorf("%w %q", ErrUnknownRun, id)
	}
	if err != nil {
		return nil, fmt.Errorf("workflow: load run %s: %w", id, err)
	}
	r := &RunState{}
	if err := json.Unmarshal(data, r); err != nil {
		return nil, fmt.Errorf("workflow: decode run %s: %w", id, err)
	}
	return r, nil
}

// loadSteps returns the state of every step of run; a step with none yet is pending.
func (s store) loadSteps(ctx context.Context, r *RunState) (map[string]*StepState, error) {
	out := map[string]*StepState{}
	for _, st := range r.Workflow.StepList() {
		key, err := memory.WorkflowStepKey(r.ID, st.ID)
		if err != nil {
			return nil, fmt.Errorf("workflow: load step %s of run %s: %w", st.ID, r.ID, err)
		}
		var data []byte
		err = s.retry(ctx, func(ctx context.Context) (err error) { data, err = s.mem.Get(ctx, key); return err })
		switch {
		case errors.Is(err, memory.ErrNotFound):
			out[st.ID] = &StepState{ID: st.ID, Phase: PhasePending}
			continue
		case err != nil:
			return nil, fmt.Errorf("workflow: load step %s of run %s: %w", st.ID, r.ID, err)
		}
		ss := &StepState{}
		if err := json.Unmarshal(data, ss); err != nil {
			return nil, fmt.Errorf("workflow: decode step %s of run %s: %w", st.ID, r.ID, err)
		}
		out[st.ID] = ss
	}
	return out, nil
}

// Show returns the report of run id as its stored state says now: the
// steps with their phase, attempts, timing and outputs, and the outcome
// (RUNNING while it has not ended). An unknown run is an error wrapping
// ErrUnknownRun.
func Show(ctx context.Context, mem memory.Memory, id string) (*Report, error) {
	if err := ValidateRunID(id); err != nil {
		return nil, err
	}
	s := store{mem: mem}
	r, err := s.loadRun(ctx, id)
	if err != nil {
		return nil, err
	}
	steps, err := s.loadSteps(ctx, r)
	if err != nil {
		return nil, err
	}
	return buildReport(r, steps), nil
}
