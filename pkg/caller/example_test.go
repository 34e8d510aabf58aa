// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package caller_test

import (
	"context"
	"fmt"
	"log"
	"sync"

	"github.com/a2abus/a2abus/config"
	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/agent"
	"github.com/a2abus/a2abus/pkg/caller"
	"github.com/a2abus/a2abus/pkg/node"
)

// start opens a node on the embedded bus and memory, runs a Writer agent
// whose draft skill reports its progress, and returns a running caller and a
// function that stops everything.
func start() (*caller.Caller, func()) {
	ctx, stop := context.WithCancel(context.Background())
	cfg := config.Default() // calls are denied by default: a rule lets the caller call the agent
	cfg.Policy.Rules = append(cfg.Policy.Rules, config.PolicyRule{Caller: "Primary", Allow: []string{"Writer"}})
	n, err := node.Open(ctx, cfg, "example", nil)
	if err != nil {
		log.Fatal(err)
	}
	writer, err := n.Agent(a2a.AgentCard{Name: "Writer", Version: "1.0"})
	if err != nil {
		log.Fatal(err)
	}
	err = writer.Handle("draft", func(ctx context.Context, t *agent.Task) (*agent.Result, error) {
		if err := t.Progress(ctx, "outline done", 0.5); err != nil {
			return nil, err
		}
		return agent.TextResult("A draft about " + t.Text()), nil
	})
	if err != nil {
		log.Fatal(err)
	}
	// title asks which tone first: the answer comes as the task's next turn,
	// with the task's history (on any replica of the agent).
	err = writer.Handle("title", func(_ context.Context, t *agent.Task) (*agent.Result, error) {
		if t.Turn() == 0 {
			return agent.Ask("Which tone?", a2a.Option{ID: "dry", Label: "Dry"}, a2a.Option{ID: "funny", Label: "Funny"}), nil
		}
		return agent.TextResult(fmt.Sprintf("A %s title for %s", t.Text(), a2a.MessageText(t.History()[0]))), nil
	})
	if err != nil {
		log.Fatal(err)
	}
	c, err := n.Caller("Primary", nil)
	if err != nil {
		log.Fatal(err)
	}
	var wg sync.WaitGroup
	wg.Go(func() { _ = writer.Run(ctx) })
	wg.Go(func() { _ = c.Run(ctx) })
	return c, func() { stop(); wg.Wait(); _ = n.Close() }
}

// Call sends a task and waits for its outcome; a status function sees the
// agent's status updates meanwhile (the first says it started working).
func ExampleCaller_Call() {
	c, stop := start()
	defer stop()

	onStatus := func(st *a2a.TaskStatus) {
		if st.Message == nil {
			fmt.Println("status:", st.State)
			return
		}
		fmt.Printf("status: %s, %s (%.0f%%)\n", st.State, a2a.MessageText(st.Message), *st.Progress*100)
	}
	out, err := c.Call(context.Background(), caller.Request{Target: "Writer", Skill: "draft", Text: "otters"}, onStatus)
	if err != nil {
		log.Fatal(err) // the call was refused or could not be sent
	}
	if err := out.Err(); err != nil {
		log.Fatal(err) // the task failed: an *a2a.Error with its code
	}
	fmt.Println(out.Result.State, out.Result.Text())
	// Output:
	// status: TASK_STATE_WORKING
	// status: TASK_STATE_WORKING, outline done (50%)
	// TASK_STATE_COMPLETED A draft about otters
}

// Invoke returns as soon as the task is recorded and sent, with its id and
// the memory key its result will have; Wait, here or in any other replica
// of the caller, later waits for the outcome.
func ExampleCaller_Invoke() {
	c, stop := start()
	defer stop()
	ctx := context.Background()

	inv, err := c.Invoke(ctx, caller.Request{Target: "Writer", Skill: "draft", Text: "beavers", SessionID: "notes"})
	if err != nil {
		log.Fatal(err)
	}
	// ... the process does other work; inv.TaskID may be stored and waited for later.
	out, err := c.Wait(ctx, inv.TaskID, nil)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(out.Result.Text())
	fmt.Println(out.MemoryKey == inv.MemoryKey)
	// Output:
	// A draft about beavers
	// true
}

// An agent may end its turn with a question (agent.Ask): the call returns
// with the task waiting for input, and Continue answers it and waits for
// the end of the turn the answer starts. Every task has a context id: a
// next call in the same context gets the earlier tasks' messages.
func ExampleCaller_Continue() {
	c, stop := start()
	defer stop()
	ctx := context.Background()

	out, err := c.Call(ctx, caller.Request{Target: "Writer", Skill: "title", Text: "otters", SessionID: "notes"}, nil)
	if err != nil {
		log.Fatal(err)
	}
	if out.WaitingForInput() {
		q := out.Question()
		fmt.Println("asked:", q.Text, len(q.Options), "options")
		out, err = c.Continue(ctx, caller.Reply{TaskID: out.TaskID, Text: q.Options[1].ID}, nil)
		if err != nil {
			log.Fatal(err) // refused: TASK_FINISHED, INVALID_STATE, FORBIDDEN …
		}
	}
	fmt.Println(out.Turn, out.Result.Text())
	next, err := c.Call(ctx, caller.Request{Target: "Writer", Skill: "draft", Text: "the same otters",
		SessionID: "notes", ContextID: out.ContextID}, nil) // the agent gets both messages of the title task
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(next.ContextID == out.ContextID)
	// Output:
	// asked: Which tone? 2 options
	// 1 A funny title for otters
	// true
}
