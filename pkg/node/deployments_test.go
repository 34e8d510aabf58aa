// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package node

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/a2abus/a2abus/bus"
	"github.com/a2abus/a2abus/bus/rabbitmq"
	"github.com/a2abus/a2abus/config"
	"github.com/a2abus/a2abus/internal/testenv"
	"github.com/a2abus/a2abus/internal/testworld"
	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/agent"
)

// Two deployments on one RabbitMQ vhost, each with its own bus.exchange and
// the same agent name: the first serves; the second stops at start with the
// *bus.DeploymentConflictError that names the queue and both exchanges and
// says to give each deployment its own vhost (docs/topology.md).
func TestSecondDeploymentOnOneVhostStopsAtStart(t *testing.T) {
	first, second := testworld.RealBus(t), testworld.RealBus(t)
	name := first.N("Twin")
	serve := func(ctx context.Context, w *testworld.World) error {
		cfg := config.Default()
		cfg.Bus.URL, cfg.Bus.Exchange, cfg.Redis.URL = w.AMQPURL, w.Exchange, config.EmbeddedURL
		cfg.Directory.WellKnownFile = ""
		return Serve(ctx, cfg, "deployments-test", nil, func(_ context.Context, h *Host) error {
			_, err := h.Agent(a2a.AgentCard{Name: name, Version: "1", Skills: []a2a.AgentSkill{{ID: "echo", Name: "echo"}}},
				func(a *agent.Agent) error {
					return a.Handle("echo", func(context.Context, *agent.Task) (*agent.Result, error) { return agent.TextResult("ok"), nil })
				})
			return err
		})
	}
	ctx, cancel := context.WithCancel(context.Background())
	firstDone := make(chan error, 1)
	go func() { firstDone <- serve(ctx, first) }()
	defer func() {
		cancel()
		if err := <-firstDone; err != nil {
			t.Errorf("first deployment: %v", err)
		}
	}()
	// The first deployment's agent consumes its task queue.
	probe, ok := first.Connect(t).(*rabbitmq.Bus)
	if !ok {
		t.Fatal("testworld.RealBus did not connect a *rabbitmq.Bus")
	}
	spec, err := bus.TaskQueue(name)
	if err != nil {
		t.Fatal(err)
	}
	testenv.Eventually(t, "the first deployment's agent consumes "+spec.Name, func() bool {
		st, err := probe.Inspect(context.Background(), spec.Name)
		return err == nil && st.Consumers > 0
	})

	secondCtx, cancelSecond := context.WithTimeout(context.Background(), time.Minute)
	defer cancelSecond()
	err = serve(secondCtx, second)
	var conflict *bus.DeploymentConflictError
	if !errors.As(err, &conflict) {
		t.Fatalf("second deployment = %v, want a *bus.DeploymentConflictError", err)
	}
	if conflict.Queue != spec.Name || conflict.Exchange != second.Exchange || conflict.Other != first.Exchange {
		t.Errorf("conflict = %+v, want queue %q, exchange %q, other %q", conflict, spec.Name, second.Exchange, first.Exchange)
	}
	t.Log(err)
	if !strings.Contains(err.Error(), "vhost") {
		t.Errorf("error %q does not say to use a vhost", err)
	}
}
