// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package node_test

import (
	"context"
	"fmt"
	"log"
	"strings"
	"sync"

	"github.com/a2abus/a2abus/config"
	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/agent"
	"github.com/a2abus/a2abus/pkg/caller"
	"github.com/a2abus/a2abus/pkg/node"
)

// An agent with one skill and a caller calling it, in one process. The
// default configuration names no servers, so Open gives the embedded bus and
// memory; with bus.url and redis.url set (config.Load reads A2ABUS_* and
// a2abus.yaml) the same code runs on RabbitMQ and Redis. Calls are denied
// by default: a policy rule lets the caller call the agent.
func ExampleOpen() {
	ctx := context.Background()
	cfg := config.Default()
	cfg.Policy.Rules = append(cfg.Policy.Rules, config.PolicyRule{Caller: "Primary", Allow: []string{"Greeter"}})
	n, err := node.Open(ctx, cfg, "example", nil)
	if err != nil {
		log.Fatal(err)
	}
	defer n.Close() // last: the parts stop first

	greeter, err := n.Agent(a2a.AgentCard{Name: "Greeter", Version: "1.0"})
	if err != nil {
		log.Fatal(err)
	}
	err = greeter.Handle("greet", func(ctx context.Context, t *agent.Task) (*agent.Result, error) {
		return agent.TextResult("Hello, " + t.Text() + "!"), nil
	})
	if err != nil {
		log.Fatal(err)
	}
	c, err := n.Caller("Primary", nil) // nil resolver: targets are sent as given
	if err != nil {
		log.Fatal(err)
	}

	// The agent works its task queue; the caller's Run consumes the answers.
	runCtx, stop := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Go(func() { _ = greeter.Run(runCtx) })
	wg.Go(func() { _ = c.Run(runCtx) })
	defer wg.Wait()
	defer stop()

	out, err := c.Call(ctx, caller.Request{Target: "Greeter", Skill: "greet", Text: "Ada", SessionID: "demo"}, nil)
	if err != nil {
		log.Fatal(err) // the call could not be made
	}
	if err := out.Err(); err != nil {
		log.Fatal(err) // the task failed
	}
	fmt.Println(out.Result.Text())
	// The result is also kept in working memory, under a key of the session.
	fmt.Println(strings.TrimSuffix(out.MemoryKey, out.TaskID+"/result"))
	// Output:
	// Hello, Ada!
	// session/demo/a2a/Greeter/
}
