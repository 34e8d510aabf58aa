// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package workflow

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"sync"
	"time"

	"github.com/google/uuid"
	"go.uber.org/zap"

	"github.com/a2abus/a2abus/memory"
	"github.com/a2abus/a2abus/pkg/caller"
)

// Defaults of Options.
const (
	DefaultStateTTL          = 7 * 24 * time.Hour
	DefaultLeaseTTL          = 6 * time.Second
	DefaultMaxHandoffText    = 2000
	DefaultMaxHandoffOutputs = 20
	// DefaultMaxRenderBytes bounds a step's rendered text and input when
	// Options.MaxRenderBytes is 0 (config's workflow.max_render_bytes has the same default).
	DefaultMaxRenderBytes = 4 << 20
)

// Errors of the engine.
var (
	// ErrInvalidOptions: the options are incomplete or out of range.
	ErrInvalidOptions = errors.New("workflow: invalid options")
	// ErrWrongCaller: the run was started by another caller, the only one
	// that can wait for its steps' tasks.
	ErrWrongCaller = errors.New("workflow: run belongs to another caller")
	// ErrLeaseLost: another engine took the run over (this one stalled past
	// its lease); this one stopped driving it.
	ErrLeaseLost = errors.New("workflow: lease on the run lost")
	// ErrInvalidInput: a run's input is not a JSON object.
	ErrInvalidInput = errors.New("workflow: invalid input")
	// ErrRunMismatch: Execute was given the id of a stored run of another
	// workflow, or of another version of the workflow (its steps changed).
	ErrRunMismatch = errors.New("workflow: the run belongs to another workflow")
)

// Options configures an Engine.
type Options struct {
	// Caller invokes the steps; its Run must be running (in this process).
	// Runs are bound to its name: only a caller of that name resumes them.
	Caller *caller.Caller
	// Memory holds the runs' state. Required.
	Memory memory.Memory
	// StateTTL is how long a run's state is kept after its last change; default 7 days.
	StateTTL time.Duration
	// LeaseTTL is how long a run stays claimed by an engine that stopped
	// renewing its claim (killed): a restarted engine resumes the run after
	// at most that long. Default 6s.
	LeaseTTL time.Duration
	// MaxHandoffText bounds each prior output's text in the handoff; default 2000 characters.
	MaxHandoffText int
	// MaxRenderBytes bounds what one step's templates render to, its text
	// and input together, while rendering (workflow.max_render_bytes): past
	// it the step fails with ErrRenderTooLarge. Default DefaultMaxRenderBytes.
	MaxRenderBytes int
	// MaxHandoffOutputs bounds the prior outputs a step's handoff carries:
	// those of the latest steps that succeeded; default 20.
	MaxHandoffOutputs int
	// MaxSteps bounds the steps of a workflow Execute runs (group members
	// included); default DefaultMaxSteps. Load the workflow with a Loader
	// of the same bound to refuse it before.
	MaxSteps int
	// MemoryRetryBound is how long a run rides out an outage of working
	// memory (each read, write or wait retried with backoff) before it
	// fails; default memory.DefaultRetryBound.
	MemoryRetryBound time.Duration
	// InstanceID names this engine in run leases; default a random UUID.
	InstanceID string
	// Logger receives one line per run outcome; nil means none.
	Logger *zap.Logger
}

// Engine runs workflows on the bus through one caller, keeping every run's
// state in working memory so that a run interrupted anywhere (the process
// killed) is resumed by Execute or Resume with the same run id: no step
// whose result landed runs again and none is lost.
type Engine struct {
	opts  Options
	store store
	log   *zap.Logger
}

// New validates opts and returns an engine.
func New(opts Options) (*Engine, error) {
	switch {
	case opts.Caller == nil:
		return nil, fmt.Errorf("%w: no caller", ErrInvalidOptions)
	case opts.Memory == nil:
		return nil, fmt.Errorf("%w: no working memory", ErrInvalidOptions)
	case opts.StateTTL < 0 || opts.LeaseTTL < 0:
		return nil, fmt.Errorf("%w: negative TTL", ErrInvalidOptions)
	case opts.MaxHandoffText < 0 || opts.MaxHandoffOutputs < 0 || opts.MaxSteps < 0:
		return nil, fmt.Errorf("%w: negative bound", ErrInvalidOptions)
	case opts.MemoryRetryBound < 0:
		return nil, fmt.Errorf("%w: negative MemoryRetryBound", ErrInvalidOptions)
	}
	if opts.MemoryRetryBound == 0 {
		opts.MemoryRetryBound = memory.DefaultRetryBound
	}
	if opts.StateTTL == 0 {
		opts.StateTTL = DefaultStateTTL
	}
	if opts.LeaseTTL == 0 {
		opts.LeaseTTL = DefaultLeaseTTL
	}
	if opts.MaxHandoffText == 0 {
		opts.MaxHandoffText = DefaultMaxHandoffText
	}
	if opts.MaxRenderBytes < 0 {
		return nil, fmt.Errorf("%w: negative MaxRenderBytes %d", ErrInvalidOptions, opts.MaxRenderBytes)
	}
	if opts.MaxRenderBytes == 0 {
		opts.MaxRenderBytes = DefaultMaxRenderBytes
	}
	if opts.MaxHandoffOutputs == 0 {
		opts.MaxHandoffOutputs = DefaultMaxHandoffOutputs
	}
	if opts.MaxSteps == 0 {
		opts.MaxSteps = DefaultMaxSteps
	}
	if opts.InstanceID == "" {
		opts.InstanceID = uuid.NewString()
	}
	if opts.Logger == nil {
		opts.Logger = zap.NewNop()
	}
	return &Engine{opts: opts, store: store{mem: opts.Memory, ttl: opts.StateTTL, bound: opts.MemoryRetryBound}, log: opts.Logger}, nil
}

// RunOptions are what a run starts with; a run resumed keeps what it
// started with and ignores them.
type RunOptions struct {
	// RunID names the run; default a new UUID. A run with this id that
	// exists is resumed (or, ended, its report returned).
	RunID string
	// Input is the workflow's input, a JSON object (nil: {}); the
	// workflow's Defaults fill the fields it lacks.
	Input json.RawMessage
	// Request is the original request, in the user's words.
	Request string
	// SessionID and UserID are the user context passed to every step.
	SessionID, UserID string
	// Constraints override the workflow's by key.
	Constraints map[string]any
	// OnEvent, when set, sees each step start and end.
	OnEvent func(Event)
	// OnStart, when set, is called once the run is claimed, before any
	// step runs: resumed says a stored run of the id was found (its steps
	// that ended are not run again; one that ended returns its report).
	OnStart func(runID string, resumed bool)
}

// Event is a step starting (an attempt invoked) or ending.
type Event struct {
	RunID   string
	Step    *Step
	Index   int // 1-based position in the workflow
	Count   int
	Phase   Phase
	Attempt int
	TaskID  string
	Output  *Output
	Err     error
}

// Execute runs wf (or, when a run of id RunOptions.RunID exists, resumes it:
// wf must then be the workflow it started with, the same name and Digest,
// else the error wraps ErrRunMismatch) to its end and returns its report. A
// workflow outcome — SUCCESS, PARTIAL or ERROR — is the report's; an error
// is returned only when the run could not be driven (ctx ended, working
// memory failed, the lease was lost), and then the run stays resumable.
func (e *Engine) Execute(ctx context.Context, wf *Workflow, ro RunOptions) (*Report, error) {
	if wf == nil {
		return nil, fmt.Errorf("%w: no workflow", ErrInvalid)
	}
	if err := wf.Validate(); err != nil {
		return nil, err
	}
	if err := checkSteps(wf.File, len(wf.StepList()), e.opts.MaxSteps); err != nil {
		return nil, err
	}
	if ro.RunID == "" {
		ro.RunID = uuid.NewString()
	}
	if err := ValidateRunID(ro.RunID); err != nil {
		return nil, err
	}
	return e.drive(ctx, ro.RunID, wf, func() (*RunState, error) { return e.newRun(wf, ro) }, ro.OnStart, ro.OnEvent)
}

// Resume drives the stored run id to its end with the workflow it started
// with (see Execute); an unknown run is an error wrapping ErrUnknownRun.
func (e *Engine) Resume(ctx context.Context, id string, onEvent func(Event)) (*Report, error) {
	if err := ValidateRunID(id); err != nil {
		return nil, err
	}
	return e.drive(ctx, id, nil, nil, nil, onEvent)
}

// newRun builds the initial state of a run.
func (e *Engine) newRun(wf *Workflow, ro RunOptions) (*RunState, error) {
	input := map[string]any{}
	if len(ro.Input) > 0 && string(ro.Input) != "null" {
		if err := json.Unmarshal(ro.Input, &input); err != nil || input == nil {
			return nil, fmt.Errorf("%w: the input must be a JSON object: %s", ErrInvalidInput, cut(string(ro.Input), 80))
		}
	}
	for k, v := range wf.Defaults {
		if _, ok := input[k]; !ok {
			input[k] = v
		}
	}
	raw, err := json.Marshal(input)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidInput, err)
	}
	constraints := maps.Clone(wf.Constraints)
	if len(ro.Constraints) > 0 && constraints == nil {
		constraints = map[string]any{}
	}
	maps.Copy(constraints, ro.Constraints)
	digest, err := wf.Digest()
	if err != nil {
		return nil, err
	}
	stepSession, err := memory.WorkflowStepSession(ro.RunID)
	if err != nil {
		return nil, fmt.Errorf("workflow: run %s: %w", ro.RunID, err)
	}
	return &RunState{ID: ro.RunID, Workflow: wf, Digest: digest, Input: raw, Request: ro.Request, SessionID: ro.SessionID, UserID: ro.UserID,
		StepSession: stepSession, Constraints: constraints, Caller: e.opts.Caller.Name(), Status: StatusRunning,
		Created: time.Now().UTC()}, nil
}

// drive claims run id, loads it (creating it with create when absent and
// create is set; a stored run must be one of wf, when set) and runs its
// steps to the end.
func (e *Engine) drive(ctx context.Context, id string, wf *Workflow, create func() (*RunState, error),
	onStart func(string, bool), onEvent func(Event)) (*Report, error) {
	ctx, release, err := e.acquire(ctx, id)
	if err != nil {
		return nil, err
	}
	defer release()
	r, err := e.store.loadRun(ctx, id)
	resumed := err == nil
	if errors.Is(err, ErrUnknownRun) && create != nil {
		if r, err = create(); err == nil {
			err = e.store.saveRun(ctx, r)
		}
	}
	if err != nil {
		return nil, err
	}
	if r.Caller != e.opts.Caller.Name() {
		return nil, fmt.Errorf("%w: run %s was started by caller %q, this engine's is %q", ErrWrongCaller, id, r.Caller, e.opts.Caller.Name())
	}
	if resumed && wf != nil {
		if err := r.sameWorkflow(wf); err != nil {
			return nil, err
		}
	}
	if onStart != nil {
		onStart(id, resumed)
	}
	steps, err := e.store.loadSteps(ctx, r)
	if err != nil {
		return nil, err
	}
	if r.Status != StatusRunning {
		return buildReport(r, steps), nil // ended before: nothing runs again
	}
	rn := newRunner(e, r, steps, onEvent)
	if err := rn.runAll(ctx); err != nil {
		if c := context.Cause(ctx); errors.Is(c, ErrLeaseLost) {
			err = c
		}
		return nil, err
	}
	rep := buildReport(r, rn.snapshot())
	r.Status, r.Ended = rep.Status, time.Now().UTC()
	if err := e.store.saveRun(ctx, r); err != nil {
		return nil, err
	}
	rep.Ended = r.Ended
	e.log.Info("workflow run ended", zap.String("run", r.ID), zap.String("workflow", r.Workflow.Name),
		zap.String("status", string(rep.Status)), zap.String("failed_step", rep.FailedStep), zap.Int("warnings", len(rep.Warnings)))
	return rep, nil
}

// acquire claims run id for this engine (waiting while another holds it)
// and keeps the claim until release; the returned context ends, with
// cause ErrLeaseLost, if the claim is lost.
func (e *Engine) acquire(ctx context.Context, id string) (context.Context, func(), error) {
	ttl := e.opts.LeaseTTL
	key, err := memory.WorkflowLeaseKey(id)
	if err != nil {
		return nil, nil, fmt.Errorf("workflow: claim run %s: %w", id, err)
	}
	lease := memory.Lease{Store: e.opts.Memory, Key: key, Owner: e.opts.InstanceID, TTL: ttl}
	for {
		ok, err := lease.Acquire(ctx)
		if err != nil && !memory.Transient(err) {
			return nil, nil, fmt.Errorf("workflow: claim run %s: %w", id, err)
		}
		if ok {
			break
		}
		select {
		case <-ctx.Done():
			return nil, nil, fmt.Errorf("workflow: claim run %s: %w", id, ctx.Err())
		case <-time.After(ttl / 6):
		}
	}
	runCtx, cancel := context.WithCancelCause(ctx)
	var wg sync.WaitGroup
	wg.Go(func() {
		t := time.NewTicker(ttl / 3)
		defer t.Stop()
		for {
			select {
			case <-runCtx.Done():
				return
			case <-t.C:
			}
			ok, err := lease.Renew(runCtx)
			if err == nil && !ok {
				cancel(fmt.Errorf("%w: run %s", ErrLeaseLost, id))
				return
			}
			if err != nil && runCtx.Err() == nil {
				e.log.Warn("workflow: lease not renewed", zap.String("run", id), zap.Error(err))
			}
		}
	})
	release := func() {
		cancel(nil)
		wg.Wait()
		rctx, stop := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer stop()
		_ = lease.Release(rctx)
	}
	return runCtx, release, nil
}
