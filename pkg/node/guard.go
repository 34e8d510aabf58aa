// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package node

import (
	"fmt"

	"go.uber.org/zap"

	"github.com/a2abus/a2abus/config"
	"github.com/a2abus/a2abus/memory"
	"github.com/a2abus/a2abus/memory/redismem"
	"github.com/a2abus/a2abus/pkg/guard"
	"github.com/a2abus/a2abus/pkg/guard/redislimits"
)

// Guard builds the call guard of the policy and limits sections (policy.*,
// limits.*): callers admit their calls through it, agents authorize their
// tasks' callers with it. log receives the circuits' state changes. Its
// limits are this process's; SharedGuard builds one whose limits hold
// across processes.
func Guard(cfg *config.Config, log *zap.Logger) (*guard.Guard, error) {
	return sharedGuard(cfg, nil, log)
}

// SharedGuard is Guard with its limits kept in the Redis of m as well
// (limits.shared; pkg/guard/redislimits) when m is the Redis working
// memory, so that the processes of a caller together stay under them. Any
// other memory (nil, embedded) gives Guard's. Close the guard before m.
func SharedGuard(cfg *config.Config, m memory.Memory, log *zap.Logger) (*guard.Guard, error) {
	rm, ok := m.(*redismem.Memory)
	if !cfg.Limits.Shared || !ok {
		return sharedGuard(cfg, nil, log)
	}
	client, prefix, timeout := rm.Client()
	s, err := redislimits.New(redislimits.Options{Client: client, KeyPrefix: prefix, Lease: cfg.Limits.SharedLease, Timeout: timeout, Logger: log})
	if err != nil {
		return nil, fmt.Errorf("build the call guard: %w", err)
	}
	return sharedGuard(cfg, s, log)
}

func sharedGuard(cfg *config.Config, s guard.Shared, log *zap.Logger) (*guard.Guard, error) {
	l := cfg.Limits
	g, err := guard.New(guard.Config{
		Policy: Policy(cfg),
		Limits: guard.Limits{MaxInFlight: l.MaxInFlight, Rate: l.Rate, Burst: l.Burst,
			BreakerFailures: l.BreakerFailures, BreakerCooldown: l.BreakerCooldown},
		Logger: log,
		Shared: s,
	})
	if err != nil {
		return nil, fmt.Errorf("build the call guard: %w", err)
	}
	return g, nil
}

// Policy is the guard's policy of the policy section (policy.*): the one
// place that says who may call whom, for callers, agents, a2abus access
// plan and a2abus config check.
func Policy(cfg *config.Config) guard.Policy {
	rules := make([]guard.Rule, len(cfg.Policy.Rules))
	for i, r := range cfg.Policy.Rules {
		rules[i] = guard.Rule{Caller: r.Caller, NoCalls: r.MayCall != nil && !*r.MayCall, Allow: r.Allow, Deny: r.Deny}
	}
	return guard.Policy{Default: guard.Effect(cfg.Policy.Default), Rules: rules}
}
