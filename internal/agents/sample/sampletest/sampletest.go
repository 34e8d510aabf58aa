// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

// Package sampletest runs SampleAgent in tests: the echo, sleep, fail and
// npv skills most end-to-end tests call.
package sampletest

import (
	"testing"
	"time"

	"github.com/a2abus/a2abus/bus"
	"github.com/a2abus/a2abus/internal/agents/sample"
	"github.com/a2abus/a2abus/internal/testworld"
	"github.com/a2abus/a2abus/pkg/agent"
)

// Start runs a SampleAgent called name on b until the test ends (then it
// is closed); mod adjusts its options (Memory, Concurrency, …). Its
// delegate skill has no caller.
func Start(tb testing.TB, b bus.Bus, name string, mod ...func(*agent.Options)) *agent.Agent {
	tb.Helper()
	o := agent.Options{Card: sample.Card(name), Bus: b, StopTimeout: time.Second}
	for _, m := range mod {
		m(&o)
	}
	a, err := agent.New(o)
	if err != nil {
		tb.Fatalf("sampletest: agent %s: %v", name, err)
	}
	if err := sample.Register(a, nil); err != nil {
		tb.Fatalf("sampletest: register %s: %v", name, err)
	}
	testworld.Start(tb, a)
	return a
}
