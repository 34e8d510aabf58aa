// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

// Command go-caller is a minimal a2abus caller written with the Go SDK: it
// asks an agent (by default go-agent's GreeterAgent) to run its "greet"
// skill, waits for the answer and prints it with the working-memory key the
// result is kept under.
//
// It is configured like the a2abus binaries (a2abus.yaml, then A2ABUS_*
// variables); its own name is caller.name (A2ABUS_CALLER_NAME, default Cli):
// answers come back on agent.response.<name>. Run go-agent first, on the same
// servers:
//
//	A2ABUS_BUS_URL=amqp://guest:guest@127.0.0.1:5672/ A2ABUS_REDIS_URL=redis://127.0.0.1:6379/0 go run ./examples/go-caller -who Ada
//
// Exit status: 0 when the task completed, 2 when it failed (an error code
// such as TIMEOUT or INVALID_INPUT is printed), 1 when it could not be sent.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"go.uber.org/zap"

	"github.com/a2abus/a2abus/config"
	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/caller"
	"github.com/a2abus/a2abus/pkg/node"
)

func main() {
	target := flag.String("agent", "GreeterAgent", "the agent to call")
	who := flag.String("who", "world", "whom to greet: the task's message")
	timeout := flag.Duration("timeout", 30*time.Second, "how long the agent has to answer")
	flag.Parse()
	os.Exit(run(*target, *who, *timeout))
}

func run(target, who string, timeout time.Duration) int {
	// 1. Configuration, as go-agent loads it. This program logs nothing: its
	// output is the answer.
	cfg, err := config.Load(config.LoadOptions{})
	if err != nil {
		fmt.Fprintln(os.Stderr, "go-caller: load configuration:", err)
		return 1
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	// 2. Assembly: the same bus and working memory as the agent's.
	n, err := node.Open(ctx, cfg, cfg.Caller.Name, zap.NewNop())
	if err != nil {
		fmt.Fprintln(os.Stderr, "go-caller: open node:", err)
		return 1
	}
	defer func() { _ = n.Close() }()

	// 3. The caller. A nil resolver sends to the target as named, without
	// asking a directory: if the agent is not running yet, the task waits in
	// its durable queue (agent.task.<name>) until it starts or times out.
	c, err := n.Caller(cfg.Caller.Name, nil)
	if err != nil {
		fmt.Fprintln(os.Stderr, "go-caller:", err)
		return 1
	}
	// Run consumes the answers; it must run while we wait for ours.
	runCtx, stopCaller := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { defer close(done); _ = c.Run(runCtx) }()
	defer func() { stopCaller(); <-done }()

	// 4. Call: send the task and wait for its outcome. The timeout is the
	// task's deadline: past it the task ends as TIMEOUT, never hangs.
	out, err := c.Call(ctx, caller.Request{Target: target, Skill: "greet", Text: who, Timeout: timeout}, nil)
	if err != nil { // refused before sending (bad name, limits) or interrupted
		fmt.Fprintln(os.Stderr, "go-caller: call:", err)
		return 1
	}
	// 5. The outcome: a failed task is an *a2a.Error with a stable code.
	if err := out.Err(); err != nil {
		fmt.Printf("task %s failed: %s: %s\n", out.TaskID, a2a.CodeOf(err), out.Result.Text())
		return 2
	}
	fmt.Println(out.Result.Text())
	fmt.Println("memory key:", out.MemoryKey) // kept for memory.result_ttl
	return 0
}
