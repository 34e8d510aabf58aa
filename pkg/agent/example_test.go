// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package agent_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"strconv"
	"sync"

	"github.com/a2abus/a2abus/config"
	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/agent"
	"github.com/a2abus/a2abus/pkg/caller"
	"github.com/a2abus/a2abus/pkg/node"
)

// A skill with an input schema: the agent checks every task's input against
// it before the handler runs, and answers a bad one with INVALID_INPUT.
func ExampleAgent_Handle() {
	ctx := context.Background()
	cfg := config.Default() // calls are denied by default: a rule lets the caller call the agent
	cfg.Policy.Rules = append(cfg.Policy.Rules, config.PolicyRule{Caller: "Primary", Allow: []string{"Calculator"}})
	n, err := node.Open(ctx, cfg, "example", nil) // the embedded bus and memory
	if err != nil {
		log.Fatal(err)
	}
	defer n.Close()

	calc, err := n.Agent(a2a.AgentCard{Name: "Calculator", Version: "1.0", Description: "Adds numbers."})
	if err != nil {
		log.Fatal(err)
	}
	schema := json.RawMessage(`{
		"type": "object",
		"properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
		"required": ["a", "b"]
	}`)
	add := func(ctx context.Context, t *agent.Task) (*agent.Result, error) {
		var in struct{ A, B int }
		if err := t.DecodeInput(&in); err != nil {
			return nil, err // an *a2a.Error: INVALID_INPUT
		}
		return agent.TextResult(strconv.Itoa(in.A + in.B)), nil
	}
	if err := calc.Handle("add", add, agent.WithInputSchema(schema)); err != nil {
		log.Fatal(err)
	}
	fmt.Println("skills:", calc.Card().Skills[0].ID)

	c, err := n.Caller("Primary", nil)
	if err != nil {
		log.Fatal(err)
	}
	runCtx, stop := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Go(func() { _ = calc.Run(runCtx) })
	wg.Go(func() { _ = c.Run(runCtx) })
	defer wg.Wait()
	defer stop()

	for _, input := range []string{`{"a": 2, "b": 3}`, `{"a": 2}`} {
		out, err := c.Call(ctx, caller.Request{Target: "Calculator", Skill: "add", Input: json.RawMessage(input)}, nil)
		if err != nil {
			log.Fatal(err)
		}
		if err := out.Err(); err != nil {
			fmt.Println(a2a.CodeOf(err)+":", out.Result.Text())
			continue
		}
		fmt.Println(out.Result.Text())
	}
	// Output:
	// skills: add
	// 5
	// INVALID_INPUT: skill "add" of "Calculator": input does not match the schema: /b: required: missing
}
