// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package soak

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	mrand "math/rand/v2"
	"time"

	"go.uber.org/zap"

	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/agent"
	"github.com/a2abus/a2abus/pkg/caller"
	"github.com/a2abus/a2abus/pkg/node"
)

// soakCard is the card of a soak agent called name.
func soakCard(name string) a2a.AgentCard {
	skill := func(id, desc string) a2a.AgentSkill {
		return a2a.AgentSkill{ID: id, Name: id, Description: desc, Tags: []string{"soak"}}
	}
	return a2a.AgentCard{
		Name: name, Description: "a2abus soak agent", Version: "1.0",
		DefaultInputModes: []string{"text/plain"}, DefaultOutputModes: []string{"text/plain"},
		Skills: []a2a.AgentSkill{
			skill(SkillFast, "answers at once"),
			skill(SkillSlow, "answers after 50 to 500 ms"),
			skill(SkillFail, "always fails"),
			skill(SkillNested, "answers with the fast answer of its peer"),
			skill(SkillRandom, "answers a random text, different on every run"),
		},
	}
}

// skills are a soak agent's handlers.
type skills struct {
	peer   string         // the agent nested calls
	caller *caller.Caller // makes the nested calls
	ledger *Ledger        // records the random answers
}

func (s *skills) fast(_ context.Context, t *agent.Task) (*agent.Result, error) {
	return agent.TextResult(Answer(SkillFast, t.Text())), nil
}

func (s *skills) slow(ctx context.Context, t *agent.Task) (*agent.Result, error) {
	d := time.Duration(50+mrand.IntN(451)) * time.Millisecond
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-timer.C:
		return agent.TextResult(Answer(SkillSlow, t.Text())), nil
	}
}

func (s *skills) fail(_ context.Context, t *agent.Task) (*agent.Result, error) {
	return nil, errors.New("fail " + t.Text())
}

// nested calls its peer's fast skill with the task's text (the sub-call
// inherits the task's session and chain) and answers with its answer.
func (s *skills) nested(ctx context.Context, t *agent.Task) (*agent.Result, error) {
	out, err := s.caller.Call(ctx, caller.Request{Target: s.peer, Skill: SkillFast, Text: t.Text()}, nil)
	if err != nil {
		return nil, fmt.Errorf("nested: call %s.fast: %w", s.peer, err)
	}
	if err := out.Err(); err != nil {
		return nil, err
	}
	return agent.TextResult(out.Result.Text()), nil
}

// random answers like an LLM: a new text on every run, recorded in the
// ledger before it is returned.
func (s *skills) random(ctx context.Context, t *agent.Task) (*agent.Result, error) {
	b := make([]byte, 12)
	_, _ = rand.Read(b)
	answer := "random " + hex.EncodeToString(b)
	if err := s.ledger.Produced(ctx, t.Request.SessionID, answer); err != nil {
		return nil, err
	}
	return agent.TextResult(answer), nil
}

// RunAgent is the agent role: a soak agent named by SOAK_NAME, assembled
// from the A2ABUS_* configuration, with a caller of its own name for the
// nested skill, until ctx ends.
func RunAgent(ctx context.Context) (err error) {
	cfg, log, err := childConfig()
	if err != nil {
		return err
	}
	defer func() { _ = log.Sync() }()
	vs, err := mustEnv(envName, envPeer, envLedger, envRun)
	if err != nil {
		return err
	}
	name, peer, ledgerURL, run := vs[0], vs[1], vs[2], vs[3]
	ledger, err := NewLedger(ledgerURL, run)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, ledger.Close()) }()
	st, err := node.Open(ctx, cfg, name, log)
	if err != nil {
		return fmt.Errorf("soak: agent %s: %w", name, err)
	}
	defer func() { err = errors.Join(err, st.Close()) }()
	a, err := st.Agent(soakCard(name))
	if err != nil {
		return err
	}
	c, err := st.Caller(name, nil)
	if err != nil {
		return err
	}
	sk := &skills{peer: peer, caller: c, ledger: ledger}
	for id, h := range map[string]agent.Handler{SkillFast: sk.fast, SkillSlow: sk.slow, SkillFail: sk.fail, SkillNested: sk.nested, SkillRandom: sk.random} {
		if err := a.Handle(id, h); err != nil {
			return fmt.Errorf("soak: agent %s: register %s: %w", name, id, err)
		}
	}
	log.Info("soak agent started", zap.String("agent", name), zap.String("peer", peer))
	// The caller outlives the agent, so nested calls of the tasks finishing
	// during the agent's stop still get their answers.
	callerCtx, stopCaller := context.WithCancel(context.WithoutCancel(ctx))
	defer stopCaller()
	callerDone := make(chan error, 1)
	go func() { callerDone <- c.Run(callerCtx) }()
	runErr := a.Run(ctx)
	if ctx.Err() != nil && errors.Is(runErr, context.Canceled) {
		runErr = nil
	}
	errs := []error{runErr, a.Close(), c.Close()}
	if cerr := <-callerDone; cerr != nil && !errors.Is(cerr, caller.ErrClosed) {
		errs = append(errs, cerr)
	}
	return errors.Join(errs...)
}
