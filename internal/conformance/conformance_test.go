// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package conformance_test

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap"

	"github.com/a2abus/a2abus/config"
	"github.com/a2abus/a2abus/internal/agents"
	"github.com/a2abus/a2abus/internal/conformance"
	"github.com/a2abus/a2abus/internal/conformance/conformancetest"
	"github.com/a2abus/a2abus/internal/testworld"
)

// serveSample runs SampleAgent named name on w's real broker and returns a
// function that stops it and waits for it to return.
func serveSample(t *testing.T, w *testworld.World, name string) func(context.Context) error {
	t.Helper()
	cfg := config.Default()
	cfg.Bus.URL, cfg.Bus.Exchange = w.AMQPURL, w.Exchange
	cfg.Redis.URL, cfg.Redis.KeyPrefix = w.RedisURL, w.KeyPrefix
	cfg.Agent.StopTimeout = time.Second
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- agents.Serve(ctx, cfg, agents.KindSample, name, zap.NewNop()) }()
	stopped := false
	stop := func(wctx context.Context) error {
		if stopped {
			return nil
		}
		stopped = true
		cancel()
		select {
		case err := <-done:
			return err
		case <-wctx.Done():
			return wctx.Err()
		}
	}
	t.Cleanup(func() { _ = stop(context.Background()) })
	return stop
}

// The Go reference agent meets every requirement, deregistration included.
func TestSampleAgentConforms(t *testing.T) {
	w := testworld.Real(t)
	name := w.N("ConfSample")
	stop := serveSample(t, w, name)
	rep := conformancetest.RequireAll(t, conformance.Options{
		URL: w.AMQPURL, Exchange: w.Exchange, Agent: name, Caller: w.N("ConfKit"), Stop: stop, Timeout: 20 * time.Second,
	})
	if rep.Failed() || len(rep.Results) != 16 {
		t.Errorf("report failed=%v with %d results, want a pass of 16", rep.Failed(), len(rep.Results))
	}
}

// An agent that is not running fails at once, with reasons, and the
// report says it does not conform.
func TestAbsentAgentFails(t *testing.T) {
	w := testworld.Real(t)
	rep, err := conformance.Run(context.Background(), conformance.Options{
		URL: w.AMQPURL, Exchange: w.Exchange, Agent: w.N("ConfNobody"), Timeout: time.Second,
	})
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Failed() {
		t.Fatal("a missing agent conforms")
	}
	byID := map[string]conformance.Result{}
	for _, r := range rep.Results {
		byID[r.ID] = r
	}
	if d := byID["discovery"]; d.Outcome != conformance.Fail || !strings.Contains(d.Detail, "unroutable") {
		t.Errorf("discovery: %+v", d)
	}
	if r := byID["round-trip"]; r.Outcome != conformance.Fail || !strings.Contains(r.Detail, "unroutable") {
		t.Errorf("round-trip: %+v", r)
	}
	if r := byID["deregistration"]; r.Outcome != conformance.Fail && r.Outcome != conformance.Skip {
		t.Errorf("deregistration: %+v", r)
	}
	var js bytes.Buffer
	if err := rep.WriteJSON(&js); err != nil || !strings.Contains(js.String(), `"outcome": "fail"`) {
		t.Errorf("json report: %v\n%s", err, &js)
	}
}

func TestOptionsRefused(t *testing.T) {
	for _, o := range []conformance.Options{
		{Agent: "X"}, // no URL
		{URL: "amqp://127.0.0.1:1/", Agent: "has.dot"},
		{URL: "amqp://127.0.0.1:1/", Agent: "X", Skill: "bad skill"},
		{URL: "amqp://127.0.0.1:1/", Agent: "X", QueueType: "stream"},
		{URL: "amqp://127.0.0.1:1/", Agent: "X", Caller: "x"},
	} {
		if _, err := conformance.Run(context.Background(), o); !errors.Is(err, conformance.ErrInvalidOptions) {
			t.Errorf("%+v: got %v, want ErrInvalidOptions", o, err)
		}
	}
}
