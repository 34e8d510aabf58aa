// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package soak

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/caller"
	"github.com/a2abus/a2abus/pkg/node"
)

// waitBound bounds how long a one-shot caller waits for one of its tasks
// before it leaves it to the always-on replica of its name.
const waitBound = 2 * time.Minute

// callerRole is one caller process's state.
type callerRole struct {
	name, proc, run string
	seed            uint64
	total           int64
	agents          []string
	c               *caller.Caller
	ledger          *Ledger
	log             *zap.Logger
}

// RunCaller is the caller role: a caller named SOAK_NAME, assembled from the
// A2ABUS_* configuration. An always-on one (SOAK_CALLER=always) takes task
// numbers with SOAK_WORKERS workers until the budget is spent, then keeps
// handling responses (its one-shot replicas' too) until ctx ends; a one-shot
// one invokes SOAK_BATCH tasks, waits for them (bounded) and exits.
func RunCaller(ctx context.Context) (err error) {
	cfg, log, err := childConfig()
	if err != nil {
		return err
	}
	defer func() { _ = log.Sync() }()
	vs, err := mustEnv(envName, envRun, envAgents, envLedger)
	if err != nil {
		return err
	}
	ledgerURL := vs[3]
	r := &callerRole{name: vs[0], run: vs[1], agents: strings.Split(vs[2], ","), proc: os.Getenv(envProc), log: log}
	total, err := envInt(envTotal, 0)
	if err != nil {
		return err
	}
	r.total = int64(total)
	seed, err := strconv.ParseUint(os.Getenv(envSeed), 10, 64)
	if err != nil {
		return fmt.Errorf("soak: %s: %w", envSeed, err)
	}
	r.seed = seed
	if r.ledger, err = NewLedger(ledgerURL, r.run); err != nil {
		return err
	}
	defer func() { err = errors.Join(err, r.ledger.Close()) }()
	st, err := node.Open(ctx, cfg, r.name, log)
	if err != nil {
		return fmt.Errorf("soak: caller %s: %w", r.name, err)
	}
	defer func() { err = errors.Join(err, st.Close()) }()
	if r.c, err = st.Caller(r.name, nil); err != nil {
		return err
	}
	runCtx, stopRun := context.WithCancel(context.WithoutCancel(ctx))
	defer stopRun()
	runDone := make(chan error, 1)
	go func() { runDone <- r.c.Run(runCtx) }()
	var loadErr error
	if os.Getenv(envCallerMod) == "oneshot" {
		batch, berr := envInt(envBatch, 20)
		if berr != nil {
			return berr
		}
		loadErr = r.oneShot(ctx, batch)
	} else {
		workers, werr := envInt(envWorkers, 8)
		if werr != nil {
			return werr
		}
		var pace time.Duration
		if v := os.Getenv(envPace); v != "" {
			if pace, err = time.ParseDuration(v); err != nil {
				return fmt.Errorf("soak: %s: %w", envPace, err)
			}
		}
		loadErr = r.alwaysOn(ctx, workers, pace)
	}
	closeErr := r.c.Close()
	if rerr := <-runDone; rerr != nil && !errors.Is(rerr, caller.ErrClosed) {
		closeErr = errors.Join(closeErr, rerr)
	}
	return errors.Join(loadErr, closeErr)
}

// take takes the next task number, or false when the budget is spent.
func (r *callerRole) take(ctx context.Context) (int64, bool, error) {
	n, err := r.ledger.Client().Incr(ctx, r.ledger.key(keyIssued)).Result()
	if err != nil {
		return 0, false, fmt.Errorf("soak: take a task number: %w", err)
	}
	return n, n <= r.total, nil
}

// alwaysOn runs workers, each starting a task at most every pace, until
// the budget is spent, marks itself idle and then waits for ctx to end (its
// caller keeps handling responses).
func (r *callerRole) alwaysOn(ctx context.Context, workers int, pace time.Duration) error {
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for range workers {
		wg.Go(func() {
			var next time.Time
			for ctx.Err() == nil {
				if wait := time.Until(next); wait > 0 {
					pause(wait) // load shaping: the run's rate, not a synchronisation
				}
				next = time.Now().Add(pace)
				n, ok, err := r.take(ctx)
				if err != nil {
					if ctx.Err() == nil {
						errs <- err
					}
					return
				}
				if !ok {
					return
				}
				r.do(ctx, Mix(r.seed, n, r.agents))
			}
		})
	}
	wg.Wait()
	close(errs)
	if err := errors.Join(drain(errs)...); err != nil {
		return err
	}
	if err := r.ledger.Client().Set(ctx, r.ledger.key(keyIdle+r.proc), "1", 0).Err(); err != nil && ctx.Err() == nil {
		return fmt.Errorf("soak: mark %s idle: %w", r.proc, err)
	}
	r.log.Info("budget spent: handling responses until stopped")
	<-ctx.Done()
	return nil
}

// oneShot invokes batch tasks (or what is left of the budget) at once and waits for them.
func (r *callerRole) oneShot(ctx context.Context, batch int) error {
	var wg sync.WaitGroup
	for range batch {
		n, ok, err := r.take(ctx)
		if err != nil {
			return err
		}
		if !ok {
			break
		}
		wg.Go(func() { r.do(ctx, Mix(r.seed, n, r.agents)) })
	}
	wg.Wait()
	return nil
}

// do runs one task: the ledger entry, then the invoke or call.
func (r *callerRole) do(ctx context.Context, s Spec) {
	sid := SessionID(r.run, s.N)
	e := Entry{Session: sid, Caller: r.name, Proc: r.proc, Target: s.Target, Skill: s.Skill, Mode: s.Mode, Expect: s.Expect, Text: sid}
	if err := r.ledger.Intend(ctx, e); err != nil {
		r.log.Error("ledger entry not written: task not invoked", zap.String("session", sid), zap.Error(err))
		return
	}
	req := caller.Request{Target: s.Target, Skill: s.Skill, Text: sid, SessionID: sid, Timeout: s.Timeout}
	var err error
	switch s.Mode {
	case ModeInvoke:
		err = r.invoke(ctx, req, s)
	case ModeCall:
		err = r.call(ctx, req, nil)
	default:
		err = r.call(ctx, req, func(*a2a.TaskStatus) {})
	}
	if err != nil {
		r.log.Warn("task not invoked", zap.String("session", sid), zap.Error(err))
		if lerr := r.ledger.Refused(context.WithoutCancel(ctx), sid, err); lerr != nil {
			r.log.Error("refusal not recorded", zap.String("session", sid), zap.Error(lerr))
		}
	}
}

// invoke invokes req, cancels it after s.CancelAfter, and waits for its
// outcome (bounded). Only a failed Invoke is returned: the task was then not
// published. A publish whose outcome is unknown (caller.ErrOutcomeUnknown)
// is a sent task: the caller tracks it, and its answer or a TIMEOUT comes —
// unless Wait then finds no such task (caller.ErrUnknownTask): a kept task
// never published, returned as refused.
func (r *callerRole) invoke(ctx context.Context, req caller.Request, s Spec) error {
	inv, err := r.c.Invoke(ctx, req)
	if errors.Is(err, caller.ErrOutcomeUnknown) && inv.TaskID != "" {
		r.log.Info("task sent, outcome unknown", zap.String("task", inv.TaskID), zap.Error(err))
	} else if err != nil {
		return err
	}
	r.sent(ctx, req.SessionID, inv.TaskID)
	if s.CancelAfter > 0 {
		t := time.NewTimer(s.CancelAfter)
		select {
		case <-ctx.Done():
		case <-t.C:
			if err := r.c.Cancel(ctx, inv.TaskID); err != nil {
				r.log.Warn("cancel failed", zap.String("task", inv.TaskID), zap.Error(err))
			}
		}
		t.Stop()
	}
	wctx, cancel := context.WithTimeout(ctx, waitBound)
	defer cancel()
	_, werr := r.c.Wait(wctx, inv.TaskID, nil)
	switch {
	case werr != nil && errors.Is(err, caller.ErrOutcomeUnknown) && errors.Is(werr, caller.ErrUnknownTask):
		// Kept, but it was never published: its record never landed, or
		// its withdrawal did (pkg/caller's withdraw). It is refused after all.
		return werr
	case werr != nil && ctx.Err() == nil:
		r.log.Warn("no outcome waited for", zap.String("task", inv.TaskID), zap.Error(werr))
	}
	return nil
}

// call runs req with Call: an error means it was not published (Call's
// wait ends only with its context, which the load never ends first).
func (r *callerRole) call(ctx context.Context, req caller.Request, onStatus caller.StatusFunc) error {
	out, err := r.c.Call(ctx, req, onStatus)
	if err != nil {
		if ctx.Err() != nil {
			return nil // stopping: the task may well be sent; the checker decides
		}
		return err
	}
	r.sent(ctx, req.SessionID, out.TaskID)
	return nil
}

// sent marks the task sent in the ledger.
func (r *callerRole) sent(ctx context.Context, sid, taskID string) {
	if err := r.ledger.Sent(context.WithoutCancel(ctx), sid, taskID); err != nil {
		r.log.Error("sent mark not recorded", zap.String("session", sid), zap.Error(err))
	}
}

func drain(ch <-chan error) []error {
	var errs []error
	for err := range ch {
		errs = append(errs, err)
	}
	return errs
}
