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
	"github.com/a2abus/a2abus/config"
	"github.com/a2abus/a2abus/memory"
	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/agent"
	"github.com/a2abus/a2abus/pkg/caller"
	"github.com/a2abus/a2abus/pkg/node"
	"github.com/a2abus/a2abus/pkg/ops"
)

// echoSkill is the benchmark agent's only skill.
const echoSkill = "echo"

// projectChain is a2abus's invoke chain as a program assembles it through
// pkg/node, with the default configuration (guard, identity and policy as
// they default; ops off): caller.Call, vetted by the host's directory and
// admitted by the guard → an echo agent on RabbitMQ whose skill returns the
// text → its confirmed result → the caller's response handler (Redis result
// with TTL + notification turn) → the waiting Call. Agent and caller each
// have their own node (bus connection and Redis client) and host, as
// separate processes would.
type projectChain struct {
	agentName, callerName string
	session, text         string
	agentHost, callerHost *node.Host
	mem                   memory.Memory // the caller's
	caller                *caller.Caller
	// failed is cancelled, with the error as its cause, when a part of
	// either host stops on its own: calls in flight stop waiting.
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
	settings            Settings
	text                string
	log                 *zap.Logger
	ops                 *ops.Ops // observes the chain when set (Options.Observed)
}

// nodeConfig is the default configuration on the bench's servers with the
// run's settings: agent.concurrency, caller.concurrency (its default, as the
// raw chain's responders) and limits.max_in_flight. No well-known
// file: the agent is learned from its announcement.
func (cfg projectConfig) nodeConfig() *config.Config {
	c := config.Default()
	c.Bus.URL, c.Bus.Exchange, c.Bus.QueueType = cfg.amqpURL, cfg.exchange, cfg.queueType
	c.Redis.URL, c.Redis.KeyPrefix, c.Redis.Timeout = cfg.redisURL, cfg.keyPrefix, cfg.redisTimeout
	c.Memory.ResultTTL = cfg.ttl
	c.Audit.Retention = cfg.ttl // the bench's audit records go with its results, not a week later
	c.Agent.Concurrency = cfg.settings.AgentConcurrency
	c.Caller.Concurrency = cfg.settings.ResponseConcurrency
	c.Limits.MaxInFlight = cfg.settings.GuardMaxInFlight
	c.Directory.WellKnownFile = ""
	c.Ops = config.OpsConfig{}
	return c
}

// newProjectChain opens the agent's and the caller's nodes, builds the echo
// agent and the caller on their hosts and starts them.
func newProjectChain(ctx context.Context, cfg projectConfig) (_ *projectChain, err error) {
	p := &projectChain{
		agentName:  "BenchEcho" + cfg.runID,
		callerName: "BenchCaller" + cfg.runID,
		session:    "bench-" + cfg.runID,
		text:       cfg.text,
		observed:   cfg.ops != nil,
	}
	p.failed, p.fail = context.WithCancelCause(context.Background())
	defer func() {
		if err != nil {
			_ = p.close()
		}
	}()
	nc := cfg.nodeConfig()
	// Deny by default: the one call the chain makes, checked as any call is.
	nc.Policy.Rules = []config.PolicyRule{{Caller: p.callerName, Allow: []string{p.agentName}}}
	open := func(role string) (*node.Host, error) {
		n, err := node.Open(ctx, nc, "a2abus-bench-"+role, cfg.log)
		if err != nil {
			return nil, fmt.Errorf("a2abus chain: open the %s node (RabbitMQ, Redis): %w", role, err)
		}
		if cfg.ops != nil { // replaces what the node built (OTEL_* tracing), before any part
			_ = n.Ops.Close()
			n.Ops = cfg.ops
		}
		return node.NewHost(n), nil
	}
	if p.agentHost, err = open("agent"); err != nil {
		return nil, err
	}
	if p.callerHost, err = open("caller"); err != nil {
		return nil, err
	}
	cn := p.callerHost.Node
	p.mem = cn.Memory
	cfg.ops.Watch(cn.Bus, cn.Memory, cn.Guard)
	card := a2a.AgentCard{Name: p.agentName, Version: "bench"}
	if _, err := p.agentHost.Agent(card, func(a *agent.Agent) error { return a.Handle(echoSkill, echo) }); err != nil {
		return nil, fmt.Errorf("a2abus chain: %w", err)
	}
	if p.caller, err = p.callerHost.Caller(p.callerName); err != nil {
		return nil, fmt.Errorf("a2abus chain: %w", err)
	}
	for what, h := range map[string]*node.Host{"agent": p.agentHost, "caller": p.callerHost} {
		h.Start(context.WithoutCancel(ctx))
		go func() {
			select {
			case <-h.Done():
				p.fail(fmt.Errorf("a2abus chain: a part of the %s host stopped", what))
				_ = p.caller.Close() // wakes the calls waiting (ErrClosed): call returns the cause
			case <-p.failed.Done():
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
// the caller stopped (the caller is then closed, which wakes the call),
// with what stopped. Nothing per call watches for it: the raw chain's calls
// pay for no such watch either.
func (p *projectChain) call(ctx context.Context) (*caller.Outcome, error) {
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
	recKey, err := memory.TaskRecordKey(p.callerName, out.TaskID)
	if err != nil {
		return Sizes{}, fmt.Errorf("a2abus chain: task record key: %w", err)
	}
	record, err := p.mem.Get(ctx, recKey)
	if err != nil {
		return Sizes{}, fmt.Errorf("a2abus chain: read the task record: %w", err)
	}
	return Sizes{Request: len(req.Body), Response: len(res.Body), Result: len(result), Notification: len(turn), Record: len(record)}, nil
}

// queues are the durable queues the chain declared (its instance queues
// are exclusive and go with their connections).
func (p *projectChain) queues() []string {
	task, _ := bus.TaskQueue(p.agentName)
	resp, _ := bus.ResponseQueue(p.callerName)
	return []string{task.Name, resp.Name}
}

// close stops the agent's host, then the caller's (each closes its
// parts in order, then its node).
func (p *projectChain) close() error {
	var errs []error
	for _, h := range []*node.Host{p.agentHost, p.callerHost} {
		if h != nil {
			errs = append(errs, h.Close())
		}
	}
	p.fail(nil)
	return errors.Join(errs...)
}
