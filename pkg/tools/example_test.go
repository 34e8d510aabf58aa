// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package tools_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"sync"
	"time"

	"github.com/a2abus/a2abus/config"
	"github.com/a2abus/a2abus/directory"
	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/agent"
	"github.com/a2abus/a2abus/pkg/caller"
	"github.com/a2abus/a2abus/pkg/node"
	"github.com/a2abus/a2abus/pkg/tools"
)

// The three tools called as an LLM would call them, by name with JSON
// arguments: list the agents, invoke one, and once the result is notified,
// read it from working memory.
func ExampleSet_Dispatch() {
	ctx := context.Background()
	cfg := config.Default() // the embedded bus and memory; calls denied by default:
	cfg.Policy.Rules = append(cfg.Policy.Rules, config.PolicyRule{Caller: "Assistant", Allow: []string{"Greeter"}})
	n, err := node.Open(ctx, cfg, "example", nil)
	if err != nil {
		log.Fatal(err)
	}
	defer n.Close()

	// An agent to find and call.
	greeter, err := n.Agent(a2a.AgentCard{Name: "Greeter", Version: "1.0", Description: "Greets people.",
		Skills: []a2a.AgentSkill{{ID: "greet", Name: "Greet", Description: "Greets the person named in the message."}}})
	if err != nil {
		log.Fatal(err)
	}
	err = greeter.Handle("greet", func(ctx context.Context, t *agent.Task) (*agent.Result, error) {
		return agent.TextResult("Hello, " + t.Text() + "!"), nil
	})
	if err != nil {
		log.Fatal(err)
	}
	// A directory that learns the agents from their announcements, and a
	// caller that checks its targets against it.
	dir, stopDir, err := n.StartDirectory(ctx, node.Vetter)
	if err != nil {
		log.Fatal(err)
	}
	defer stopDir()
	resolver := directory.PatientResolver{Directory: dir, Wait: 5 * time.Second}
	c, err := n.Caller("Assistant", resolver)
	if err != nil {
		log.Fatal(err)
	}
	runCtx, stop := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Go(func() { _ = greeter.Run(runCtx) })
	wg.Go(func() { _ = c.Run(runCtx) })
	defer wg.Wait()
	defer stop()

	set, err := tools.New(tools.Deps{Caller: c, Agents: tools.DirectoryLister{Directory: dir}, Resolver: resolver,
		Memory: n.Memory, SessionID: "chat-1"})
	if err != nil {
		log.Fatal(err)
	}
	// set.Definitions() is what the LLM is offered. Before listing, wait
	// until the directory has heard the agent (it has only just started).
	if _, err := resolver.Resolve(ctx, "Greeter", "greet"); err != nil {
		log.Fatal(err)
	}

	list, err := set.Dispatch(ctx, "list_known_agents", json.RawMessage(`{"skill": "greet"}`))
	if err != nil {
		log.Fatal(err)
	}
	var agents tools.AgentList
	_ = json.Unmarshal(list, &agents)
	for _, a := range agents.Agents {
		fmt.Printf("list_known_agents: %s (%s), skill %s\n", a.Name, a.Status, a.Skills[0].ID)
	}

	invoked, err := set.Dispatch(ctx, "invoke_agent", json.RawMessage(`{"agent_name": "greeter", "skill": "greet", "message": "Ada"}`))
	if err != nil {
		fmt.Println(string(tools.ErrorResult(err))) // what the LLM would read instead
		return
	}
	var task tools.InvokeResult
	_ = json.Unmarshal(invoked, &task)
	fmt.Println("invoke_agent:", task.Status)

	// The task ends; a program with a conversation would be notified. Here,
	// wait for it, then read the result as the LLM would, by its key.
	if _, err := c.Wait(ctx, task.TaskID, nil); err != nil {
		log.Fatal(err)
	}
	value, err := set.Dispatch(ctx, "get_from_working_memory", json.RawMessage(fmt.Sprintf(`{"key": %q}`, task.MemoryKey)))
	if err != nil {
		log.Fatal(err)
	}
	var result caller.StoredResult
	_ = json.Unmarshal(value, &result)
	fmt.Println("get_from_working_memory:", result.Agent, result.State, result.Text())
	// Output:
	// list_known_agents: Greeter (online), skill greet
	// invoke_agent: submitted
	// get_from_working_memory: Greeter TASK_STATE_COMPLETED Hello, Ada!
}
