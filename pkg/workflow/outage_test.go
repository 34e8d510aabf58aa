// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package workflow_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/a2abus/a2abus/internal/testworld"
	"github.com/a2abus/a2abus/memory"
	"github.com/a2abus/a2abus/pkg/workflow"
)

// downMemory fails every read and write with memory.ErrUnavailable while
// it is down.
type downMemory struct {
	memory.Memory
	down  atomic.Bool
	fails atomic.Int64
}

func (m *downMemory) err(op string) error {
	if m.down.Load() {
		m.fails.Add(1)
		return fmt.Errorf("%s: %w: connection refused", op, memory.ErrUnavailable)
	}
	return nil
}

func (m *downMemory) Set(ctx context.Context, k string, v []byte, ttl time.Duration) error {
	if err := m.err("set"); err != nil {
		return err
	}
	return m.Memory.Set(ctx, k, v, ttl)
}

func (m *downMemory) Get(ctx context.Context, k string) ([]byte, error) {
	if err := m.err("get"); err != nil {
		return nil, err
	}
	return m.Memory.Get(ctx, k)
}

func (m *downMemory) SetIfAbsent(ctx context.Context, k string, v []byte, ttl time.Duration) (bool, error) {
	if err := m.err("setnx"); err != nil {
		return false, err
	}
	return m.Memory.SetIfAbsent(ctx, k, v, ttl)
}

func (m *downMemory) IndexScore(ctx context.Context, index, member string) (int64, bool, error) {
	if err := m.err("zscore"); err != nil {
		return 0, false, err
	}
	return m.Memory.IndexScore(ctx, index, member)
}

func (m *downMemory) Batch(ctx context.Context, ops ...memory.Op) ([]memory.OpResult, error) {
	if err := m.err("batch"); err != nil {
		return nil, err
	}
	return m.Memory.Batch(ctx, ops...)
}

// Working memory down for 1.5s while a step runs (its answer arrives, the
// engine waits for it and renews its lease meanwhile): the run rides the
// outage out with memory.Retry and succeeds, the step run once.
func TestRunRidesOutAMemoryOutage(t *testing.T) {
	testworld.Each(t, func(t *testing.T, w *testworld.World) {
		down := &downMemory{Memory: w.Memory}
		w.Memory = down
		t.Cleanup(func() { w.Memory = down.Memory }) // the world closes the real one
		ag := startStepAgent(t, w, w.N("Steps"))
		e := newEngine(t, w, w.N("Orch"))
		go func() {
			<-ag.started
			down.down.Store(true)
			time.Sleep(1500 * time.Millisecond)
			down.down.Store(false)
		}()
		wf := parse(t, ag.name, `
name: outage
steps:
  - {id: s, agent: "%[1]s", skill: slow, input: {ms: 300}}
  - {id: after, agent: "%[1]s", skill: ok, text: "after ${steps.s.text}"}
`)
		rep := execute(t, e, wf, workflow.RunOptions{})
		if rep.Status != workflow.StatusSuccess || ag.count("s") != 1 || down.fails.Load() == 0 {
			t.Fatalf("ran s %d times, %d failed memory calls:\n%s", ag.count("s"), down.fails.Load(), rep.Text())
		}
	})
}
