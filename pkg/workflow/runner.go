// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package workflow

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/a2abus/a2abus/internal/backoff"
	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/caller"
)

// runner drives one run.
type runner struct {
	e       *Engine
	run     *RunState
	onEvent func(Event)

	mu sync.Mutex // guards steps
	// steps are the published copies of the steps' states (see save); each
	// step's goroutine works on its own copy.
	steps map[string]*StepState
	// invokeMu serializes the invocations of the run (intent recorded →
	// invoke → task id recorded), so that at most one attempt of the run is
	// ever between its intent and its task id: recoverTask can tell its task.
	invokeMu sync.Mutex

	// index is each step's 1-based position in the workflow, node the
	// index of its node in Workflow.Steps, count the number of steps: a
	// step's bookkeeping costs the same whatever the workflow's length.
	index, node map[string]int
	count       int
}

// newRunner returns the runner of run r, whose steps are in states steps.
func newRunner(e *Engine, r *RunState, steps map[string]*StepState, onEvent func(Event)) *runner {
	rn := &runner{e: e, run: r, steps: steps, onEvent: onEvent, index: map[string]int{}, node: map[string]int{}}
	for i, n := range r.Workflow.Steps {
		members, _, _ := n.members()
		for _, s := range members {
			rn.count++
			rn.index[s.ID], rn.node[s.ID] = rn.count, i
		}
	}
	return rn
}

// runAll runs the workflow's nodes in order until one fails the run.
func (rn *runner) runAll(ctx context.Context) error {
	for _, n := range rn.run.Workflow.Steps {
		var err error
		if n.Step != nil {
			err = rn.runStep(ctx, n.Step)
		} else {
			err = rn.runGroup(ctx, n.Group)
		}
		if err != nil {
			return err
		}
		if judgeNode(n, rn.published).failed != "" {
			return nil // ERROR: the steps after it are not run
		}
	}
	return nil
}

// published returns the published state of step id (never changed once
// published: read it, do not change it), nil for none.
func (rn *runner) published(id string) *StepState {
	rn.mu.Lock()
	defer rn.mu.Unlock()
	return rn.steps[id]
}

// state returns a private copy of step id's state.
func (rn *runner) state(id string) *StepState {
	rn.mu.Lock()
	defer rn.mu.Unlock()
	return rn.steps[id].clone()
}

// save stores st in working memory, then publishes a copy of it.
func (rn *runner) save(ctx context.Context, st *StepState) error {
	if err := rn.e.store.saveStep(ctx, rn.run.ID, st); err != nil {
		return err
	}
	rn.mu.Lock()
	rn.steps[st.ID] = st.clone()
	rn.mu.Unlock()
	return nil
}

// snapshot copies the map of published states (never changed once published).
func (rn *runner) snapshot() map[string]*StepState {
	rn.mu.Lock()
	defer rn.mu.Unlock()
	out := make(map[string]*StepState, len(rn.steps))
	for k, v := range rn.steps {
		out[k] = v
	}
	return out
}

// runGroup runs a group's steps in parallel; with a quorum, the members
// still running when it is reached are canceled.
func (rn *runner) runGroup(ctx context.Context, g *Group) error {
	quorum := g.Quorum
	if quorum == 0 {
		quorum = len(g.Steps)
	}
	gctx, stop := context.WithCancel(ctx)
	defer stop()
	var mu sync.Mutex
	var errs []error
	var wg sync.WaitGroup
	for _, s := range g.Steps {
		if rn.state(s.ID).Phase.Final() {
			continue
		}
		wg.Go(func() {
			err := rn.runStep(gctx, s)
			mu.Lock()
			defer mu.Unlock()
			if err != nil && gctx.Err() == nil {
				errs = append(errs, err)
				stop()
			}
			if rn.succeeded(g) >= quorum {
				stop()
			}
		})
	}
	wg.Wait()
	if len(errs) > 0 {
		return errors.Join(errs...)
	}
	if rn.succeeded(g) < quorum {
		return ctx.Err() // nil once every member ended
	}
	for _, s := range g.Steps { // quorum reached: cancel the rest
		st := rn.state(s.ID)
		if st.Phase.Final() {
			continue
		}
		if a := st.open(); a != nil && a.TaskID != "" {
			if err := rn.e.opts.Caller.Cancel(context.WithoutCancel(ctx), a.TaskID); err != nil {
				rn.e.log.Warn("workflow: cancel a step after its group's quorum", zap.String("run", rn.run.ID), zap.String("step", s.ID), zap.Error(err))
			}
			a.Ended = time.Now().UTC()
		}
		st.Phase, st.Ended = PhaseCanceled, time.Now().UTC()
		if err := rn.save(ctx, st); err != nil {
			return err
		}
		rn.event(s, st, nil)
	}
	return nil
}

func (rn *runner) succeeded(g *Group) int {
	n := 0
	for _, s := range g.Steps {
		if rn.state(s.ID).Phase == PhaseSucceeded {
			n++
		}
	}
	return n
}

// runStep runs s's attempts until it succeeds or has failed for good. It
// returns an error only when the run cannot go on (ctx, memory); the
// step's own failure is in its state.
func (rn *runner) runStep(ctx context.Context, s *Step) error {
	st := rn.state(s.ID)
	if st.Phase.Final() {
		return nil
	}
	if st.Phase == PhasePending {
		st.Phase, st.Started = PhaseRunning, time.Now().UTC()
	}
	for {
		a := st.open()
		if a != nil && a.TaskID == "" {
			// Killed between the intent and the task id: find the task, if it was invoked.
			id, err := rn.recoverTask(ctx, s, a)
			if err != nil {
				return err
			}
			if id == "" {
				st.Attempts = st.Attempts[:len(st.Attempts)-1] // never invoked: invoke it now
				a = nil
			} else {
				a.TaskID = id
				if err := rn.save(ctx, st); err != nil {
					return err
				}
			}
		}
		if a == nil {
			req, err := rn.request(s)
			if err != nil { // a template that cannot be resolved: no attempt can help
				return rn.finish(ctx, s, st, nil, a2a.NewError(a2a.CodeInvalidInput, "step %s: %v", s.ID, err))
			}
			if a, err = rn.invoke(ctx, s, st, req); err != nil {
				return err
			}
		}
		out, aerr, err := rn.wait(ctx, a)
		if err != nil {
			return err
		}
		a.Ended = time.Now().UTC()
		if aerr == nil {
			a.Status = out.Status
			return rn.finish(ctx, s, st, out, nil)
		}
		a.Status, a.Error = a2a.StatusFor(a2a.TaskStateFailed, aerr.Code), aerr
		// The step's retries are its explicit bound: work that failed is tried again.
		if len(st.Attempts) > s.Retries || !aerr.ShouldRetry(a2a.RetryFailedWork) {
			return rn.finish(ctx, s, st, nil, aerr)
		}
		if err := rn.save(ctx, st); err != nil {
			return err
		}
		rn.event(s, st, aerr)
		if !backoff.Sleep(ctx, stepBackoff.Delay(len(st.Attempts)-1)) { // back off before the next attempt
			return ctx.Err()
		}
	}
}

// stepBackoff is the wait between a step's attempts.
var stepBackoff = backoff.Policy{Min: 200 * time.Millisecond, Max: 2 * time.Second}

// finish records the step's end: its output, or its error.
func (rn *runner) finish(ctx context.Context, s *Step, st *StepState, out *Output, aerr *a2a.Error) error {
	st.Ended = time.Now().UTC()
	if aerr != nil {
		st.Phase, st.Error = PhaseFailed, aerr
	} else {
		st.Phase, st.Output = PhaseSucceeded, out
	}
	if err := rn.save(ctx, st); err != nil {
		return err
	}
	rn.event(s, st, aerr)
	return nil
}

// invoke records a new attempt's intent, invokes the task and records its
// id, all under the run's invoke lock. A refused call is an attempt that
// ended with the refusal.
func (rn *runner) invoke(ctx context.Context, s *Step, st *StepState, req caller.Request) (*Attempt, error) {
	rn.invokeMu.Lock()
	defer rn.invokeMu.Unlock()
	a := &Attempt{N: len(st.Attempts) + 1, Intent: time.Now().UTC()}
	st.Attempts = append(st.Attempts, a)
	if err := rn.save(ctx, st); err != nil {
		return nil, err
	}
	inv, err := rn.e.opts.Caller.Invoke(ctx, req)
	if err != nil && !errors.Is(err, caller.ErrOutcomeUnknown) {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		var ae *a2a.Error
		if !errors.As(err, &ae) {
			ae = a2a.NewError(a2a.CodeExecutionFailed, "invoke %s.%s: %v", s.Agent, s.Skill, err)
		}
		a.Error = ae // refused before it was sent: wait returns it
	}
	a.TaskID = inv.TaskID
	if err := rn.save(ctx, st); err != nil {
		return nil, err
	}
	rn.event(s, st, nil)
	return a, nil
}

// wait waits for attempt a's outcome: its output, or the task's error.
func (rn *runner) wait(ctx context.Context, a *Attempt) (*Output, *a2a.Error, error) {
	if a.TaskID == "" {
		return nil, a.Error, nil
	}
	var o *caller.Outcome
	err := rn.e.store.retry(ctx, func(ctx context.Context) (err error) { o, err = rn.e.opts.Caller.Wait(ctx, a.TaskID, nil); return err })
	switch {
	case errors.Is(err, caller.ErrUnknownTask):
		return nil, a2a.NewError(a2a.CodeExecutionFailed, "task %s is unknown to caller %q (expired?)", a.TaskID, rn.run.Caller), nil
	case err != nil:
		return nil, nil, err
	case o.Result == nil:
		return nil, a2a.NewError(a2a.CodeExecutionFailed, "task %s ended without a stored outcome (expired?)", a.TaskID), nil
	}
	if terr := o.Err(); terr != nil {
		var ae *a2a.Error
		if !errors.As(terr, &ae) {
			ae = a2a.NewError(a2a.CodeExecutionFailed, "%v", terr)
		}
		return nil, ae, nil
	}
	r := o.Result
	out := &Output{Agent: r.Agent, Skill: r.Skill, TaskID: o.TaskID, Status: r.Status, Confidence: r.Confidence,
		Text: a2a.MessageText(r.Message), Warnings: r.Warnings}
	if out.Status == "" {
		out.Status = a2a.StatusSuccess
	}
	out.Data = firstData(r.Artifacts)
	return out, nil, nil
}

// firstData is the first data part of artifacts, as JSON.
func firstData(arts []*a2a.Artifact) json.RawMessage {
	for _, a := range arts {
		if a == nil {
			continue
		}
		for _, p := range a.Parts {
			if p == nil {
				continue
			}
			if d := p.Data(); d != nil {
				if b, err := json.Marshal(d); err == nil {
					return b
				}
			}
		}
	}
	return nil
}

// recoverTask finds the task of attempt a, whose intent was recorded but
// not its task id (the engine was killed in between): a task of this run's
// caller and step session, for the step's agent and skill, created after
// the intent and claimed by no other step. As the run invokes one task at
// a time, at most one attempt is ever in that state. "" means the task was
// never invoked.
func (rn *runner) recoverTask(ctx context.Context, s *Step, a *Attempt) (string, error) {
	claimed := map[string]bool{}
	for _, st := range rn.snapshot() {
		for _, at := range st.Attempts {
			if at.TaskID != "" {
				claimed[at.TaskID] = true
			}
		}
	}
	c := rn.e.opts.Caller
	since := a.Intent.Add(-time.Second) // clock skew between processes
	match := func(target, skill, session string, created time.Time) bool {
		return strings.EqualFold(target, s.Agent) && skill == s.Skill && session == rn.run.StepSession && !created.Before(since)
	}
	pending, err := caller.PendingTasks(ctx, rn.e.opts.Memory, c.Name(), 0)
	if err != nil {
		return "", fmt.Errorf("workflow: recover step %s of run %s: %w", s.ID, rn.run.ID, err)
	}
	for _, id := range pending {
		if claimed[id] {
			continue
		}
		info, err := c.Task(ctx, id)
		if err != nil {
			continue // withdrawn or expired meanwhile
		}
		if match(info.Target, info.Skill, info.SessionID, info.CreatedAt) {
			return id, nil
		}
	}
	hist, err := caller.History(ctx, rn.e.opts.Memory, rn.run.StepSession)
	if err != nil {
		return "", fmt.Errorf("workflow: recover step %s of run %s: %w", s.ID, rn.run.ID, err)
	}
	for _, h := range hist {
		if h.Status != caller.HistoryRefused && h.Caller == c.Name() && !claimed[h.TaskID] && match(h.Target, h.Skill, h.SessionID, h.CreatedAt) {
			return h.TaskID, nil
		}
	}
	return "", nil
}

// event reports a step's progress to RunOptions.OnEvent.
func (rn *runner) event(s *Step, st *StepState, err error) {
	if rn.onEvent == nil {
		return
	}
	idx, count := rn.position(s)
	ev := Event{RunID: rn.run.ID, Step: s, Index: idx, Count: count, Phase: st.Phase, Attempt: len(st.Attempts), Output: st.Output}
	if a := st.open(); a != nil {
		ev.TaskID = a.TaskID
	}
	if err != nil {
		ev.Err = err
	}
	rn.onEvent(ev)
}

// position is s's 1-based index among the workflow's steps, and their count.
func (rn *runner) position(s *Step) (int, int) {
	return rn.index[s.ID], rn.count
}
