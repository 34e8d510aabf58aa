// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package bench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"go.uber.org/zap"

	"github.com/a2abus/a2abus/bus"
	"github.com/a2abus/a2abus/bus/rabbitmq"
	"github.com/a2abus/a2abus/memory/redismem"
	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/agent"
	"github.com/a2abus/a2abus/pkg/caller"
	"github.com/a2abus/a2abus/pkg/ops"
)

// echoSkill is the benchmark agent's only skill.
const echoSkill = "echo"

// projectChain is a2abus's invoke chain: caller.Call → an in-process
// agent.Agent on RabbitMQ whose echo skill returns the text → its confirmed
// result → the caller's response handler (Redis result with TTL +
// notification turn) → the waiting Call. Agent and caller each have their
// own bus, as separate processes would.
type projectChain struct {
	agentName, callerName string
	session, text         string
	agentBus, callerBus   *rabbitmq.Bus
	mem                   *redismem.Memory
	agent                 *agent.Agent
	caller                *caller.Caller
	// failed is cancelled, with the error as its cause, when the agent's or
	// the caller's Run fails: calls in flight stop waiting.
	failed context.Context
	fail   context.CancelCauseFunc
	// observed: metrics and tracing are on (projectConfig.ops).
	observed bool
}

// projectConfig is what newProjectChain needs.
type projectConfig struct {
	amqpURL, redisURL   string
	exchange, queueType string
	keyPrefix, runID    string
	redisTimeout, ttl   time.Duration
	inflight            int
	text                string
	log                 *zap.Logger
	ops                 *ops.Ops // observes the chain when set (Options.Observed)
}

// newProjectChain connects and starts the echo agent and the caller.
func newProjectChain(ctx context.Context, cfg projectConfig) (_ *projectChain, err error) {
	p := &projectChain{
		agentName:  "BenchEcho" + cfg.runID,
		callerName: "BenchCaller" + cfg.runID,
		session:    "bench-" + cfg.runID,
		text:       cfg.text,
	}
	p.failed, p.fail = context.WithCancelCause(context.Background())
	defer func() {
		if err != nil {
			p.close()
		}
	}()
	dial := func(role string) (*rabbitmq.Bus, error) {
		b, err := rabbitmq.Dial(ctx, rabbitmq.Options{URL: cfg.amqpURL, Exchange: cfg.exchange, QueueType: cfg.queueType,
			ConnectionName: "a2abus-bench-" + role, Logger: cfg.log})
		if err != nil {
			return nil, fmt.Errorf("a2abus chain: connect to RabbitMQ: %w", err)
		}
		return b, nil
	}
	if p.agentBus, err = dial("agent"); err != nil {
		return nil, err
	}
	if p.callerBus, err = dial("caller"); err != nil {
		return nil, err
	}
	p.mem, err = redismem.New(ctx, redismem.Options{URL: cfg.redisURL, KeyPrefix: cfg.keyPrefix, Timeout: cfg.redisTimeout, Logger: cfg.log})
	if err != nil {
		return nil, fmt.Errorf("a2abus chain: %w", err)
	}
	p.observed = cfg.ops != nil
	cfg.ops.Watch(p.callerBus, p.mem, nil)
	p.agent, err = agent.New(agent.Options{Card: a2a.AgentCard{Name: p.agentName, Version: "bench"}, Bus: p.agentBus,
		Concurrency: cfg.inflight, StopTimeout: 5 * time.Second, Logger: cfg.log, Observer: cfg.ops.AgentObserver()})
	if err != nil {
		return nil, fmt.Errorf("a2abus chain: %w", err)
	}
	if err := p.agent.Handle(echoSkill, echo); err != nil {
		return nil, fmt.Errorf("a2abus chain: %w", err)
	}
	p.caller, err = caller.New(caller.Options{Name: p.callerName, Bus: p.callerBus, Memory: p.mem, ResultTTL: cfg.ttl,
		Concurrency: cfg.inflight, Logger: cfg.log, Observer: cfg.ops.CallerObserver()})
	if err != nil {
		return nil, fmt.Errorf("a2abus chain: %w", err)
	}
	for what, run := range map[string]func(context.Context) error{"agent": p.agent.Run, "caller": p.caller.Run} {
		go func() {
			if err := run(context.WithoutCancel(ctx)); err != nil {
				p.fail(fmt.Errorf("a2abus chain: %s stopped: %w", what, err))
			}
		}()
	}
	return p, nil
}

// echo returns the task's text.
func echo(_ context.Context, t *agent.Task) (*agent.Result, error) {
	return agent.TextResult(t.Text()), nil
}

// Name is "a2abus", or "a2abus+ops" for the chain observed by metrics and tracing.
func (p *projectChain) Name() string {
	if p.observed {
		return observedChainName
	}
	return "a2abus"
}

// Call invokes the echo skill and waits for its stored result.
func (p *projectChain) Call(ctx context.Context) error {
	out, err := p.call(ctx)
	if err != nil {
		return err
	}
	if err := out.Err(); err != nil {
		return fmt.Errorf("task %s failed: %w", out.TaskID, err)
	}
	if got := out.Result.Text(); got != p.text {
		return fmt.Errorf("task %s echoed %q, want %q", out.TaskID, got, p.text)
	}
	return nil
}

// call runs caller.Call for the echo skill; it gives up when the agent or
// the caller stopped.
func (p *projectChain) call(ctx context.Context) (*caller.Outcome, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	defer context.AfterFunc(p.failed, cancel)()
	out, err := p.caller.Call(ctx, caller.Request{Target: p.agentName, Skill: echoSkill, Text: p.text,
		SessionID: p.session, Timeout: callTimeout}, nil)
	if cause := context.Cause(p.failed); err != nil && cause != nil {
		return nil, cause
	}
	return out, err
}

// sizes makes one call and measures the bodies it moved: the request and
// response as the codec encodes them, the result and the notification turn
// as they were stored.
func (p *projectChain) sizes(ctx context.Context) (Sizes, error) {
	callCtx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	out, err := p.call(callCtx)
	if err != nil {
		return Sizes{}, fmt.Errorf("a2abus chain: first call: %w", err)
	}
	result, err := p.mem.Get(ctx, out.MemoryKey)
	if err != nil {
		return Sizes{}, fmt.Errorf("a2abus chain: read the stored result: %w", err)
	}
	turns, err := p.mem.Turns(ctx, p.session, 0, 0)
	if err != nil || len(turns) == 0 {
		return Sizes{}, fmt.Errorf("a2abus chain: read the notification turn: %d turns, %w", len(turns), err)
	}
	turn, err := json.Marshal(turns[len(turns)-1])
	if err != nil {
		return Sizes{}, fmt.Errorf("a2abus chain: encode the notification turn: %w", err)
	}
	now := time.Now()
	req, err := a2a.Codec{}.Encode(&a2a.TaskRequest{TaskID: out.TaskID, SessionID: p.session, Caller: p.callerName,
		Target: p.agentName, Skill: echoSkill, Message: a2a.NewTextMessage(a2a.MessageRoleUser, p.text), Deadline: out.Deadline,
		CallChain: []string{p.callerName}, CreatedAt: now}, a2a.Trace{})
	if err != nil {
		return Sizes{}, fmt.Errorf("a2abus chain: encode a request: %w", err)
	}
	res, err := a2a.Codec{}.Encode(&a2a.TaskResult{TaskID: out.TaskID, Agent: p.agentName, State: a2a.TaskStateCompleted,
		Status: a2a.StatusSuccess, Message: a2a.NewTextMessage(a2a.MessageRoleAgent, p.text),
		Metadata: out.Result.Metadata, Time: now}, a2a.Trace{})
	if err != nil {
		return Sizes{}, fmt.Errorf("a2abus chain: encode a result: %w", err)
	}
	return Sizes{Request: len(req.Body), Response: len(res.Body), Result: len(result), Notification: len(turn)}, nil
}

// queues are the durable queues the chain declared (its instance queues
// are exclusive and go with their connections).
func (p *projectChain) queues() []string {
	task, _ := bus.TaskQueue(p.agentName)
	resp, _ := bus.ResponseQueue(p.callerName)
	return []string{task.Name, resp.Name}
}

// close stops the caller and the agent (waiting for their Run) and closes
// the buses and the memory.
func (p *projectChain) close() error {
	var errs []error
	if p.caller != nil {
		errs = append(errs, p.caller.Close())
	}
	if p.agent != nil {
		errs = append(errs, p.agent.Close())
	}
	for _, b := range []*rabbitmq.Bus{p.agentBus, p.callerBus} {
		if b != nil {
			errs = append(errs, b.Close())
		}
	}
	if p.mem != nil {
		errs = append(errs, p.mem.Close())
	}
	p.fail(nil)
	return errors.Join(errs...)
}
