// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package agents

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"go.uber.org/zap"

	"github.com/a2abus/a2abus/config"
	"github.com/a2abus/a2abus/internal/component"
	"github.com/a2abus/a2abus/memory"
	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/agent"
	"github.com/a2abus/a2abus/pkg/caller"
	"github.com/a2abus/a2abus/pkg/chat"
	"github.com/a2abus/a2abus/pkg/llm"
	"github.com/a2abus/a2abus/pkg/llmagent"
	"github.com/a2abus/a2abus/pkg/node"
	"github.com/a2abus/a2abus/pkg/tools"
)

// KindPrimary is the primary chat agent: its skill chat is the chat loop
// (pkg/chat) on the task's session.
const KindPrimary = "Primary"

// SkillChat is the Primary's skill.
const SkillChat = "chat"

// DefaultPrimaryIdle is how long the Primary keeps watching a session in
// which nothing happens and no sub-task is pending.
const DefaultPrimaryIdle = 30 * time.Minute

// PrimaryCard is the Primary's card under name.
func PrimaryCard(name string) a2a.AgentCard {
	return a2a.AgentCard{
		Name:        name,
		Description: "The primary assistant: chats in a session, calls other agents for it and answers when their results arrive.",
		Version:     "1.0",
		Skills: []a2a.AgentSkill{{
			ID: SkillChat, Name: "Chat",
			Description: "One user turn of the task's session; the result is the assistant's answer. Answers that follow the results of the agents it called are appended to the session's conversation. When an agent it called asks a question that the assistant leaves to the user, the task asks it of its caller (input-required): the answer is the user's next turn.",
		}},
	}
}

// PrimaryOptions configures a Primary.
type PrimaryOptions struct {
	// Model answers. Required.
	Model llm.Client
	// Caller starts the sub-tasks; it must be running. Required.
	Caller *caller.Caller
	// Agents answers list_known_agents; Resolver vets targets (may be nil).
	Agents   tools.Lister
	Resolver caller.Resolver
	// Memory holds the conversations. Required.
	Memory chat.Memory
	// Chat bounds each session's loop.
	Chat config.ChatConfig
	// MaxToolArgumentBytes bounds each tool call's arguments (llm.max_tool_argument_bytes; 0: the default).
	MaxToolArgumentBytes int
	// MemoryRetryBound is each session's chat.Options.MemoryRetryBound (memory.retry_bound).
	MemoryRetryBound time.Duration
	// Idle is how long a quiet session is watched; default DefaultPrimaryIdle.
	Idle time.Duration
	// Logger receives the sessions' failures; nil means none.
	Logger *zap.Logger
}

// Primary serves the chat skill: each task is a user turn on the task's
// session and its result the assistant's answer; the session's loop keeps
// running afterwards, so the answers to the notifications of the sub-tasks
// it started are appended to the conversation, where any front end
// subscribed to it sees them.
type Primary struct {
	opts     PrimaryOptions
	mu       sync.Mutex
	sessions map[string]*watched
	closed   bool
	stop     chan struct{}
	wg       sync.WaitGroup
}

// watched is a session the Primary runs.
type watched struct {
	s    *chat.Session
	seen atomic.Int64 // unix nanos of the last turn
	done chan struct{}
}

// NewPrimary validates opts; Close stops every session it started.
func NewPrimary(opts PrimaryOptions) (*Primary, error) {
	if opts.Model == nil || opts.Caller == nil || opts.Agents == nil || opts.Memory == nil {
		return nil, fmt.Errorf("%w: Model, Caller, Agents and Memory are required", chat.ErrInvalidOptions)
	}
	if opts.Idle <= 0 {
		opts.Idle = DefaultPrimaryIdle
	}
	if opts.Logger == nil {
		opts.Logger = zap.NewNop()
	}
	p := &Primary{opts: opts, sessions: map[string]*watched{}, stop: make(chan struct{})}
	p.wg.Add(1)
	go p.sweep()
	return p, nil
}

// Register registers the chat skill on a.
func (p *Primary) Register(a *agent.Agent) error { return a.Handle(SkillChat, p.Handle) }

// Handle answers one chat task: its text is the user turn (appended once,
// however often the task is delivered), its result the answer. When the
// run that answered it left a question of a sub-task it started (or
// answered) to the user — the sub-task still waits for input — the result
// asks the task's caller instead (agent.Ask with the answer's text and
// that question's options): the caller's answer is the task's next turn,
// appended as the user's next turn, which the model passes on.
func (p *Primary) Handle(ctx context.Context, t *agent.Task) (*agent.Result, error) {
	text := t.Text()
	if text == "" {
		return nil, a2a.NewError(a2a.CodeInvalidInput, "the chat skill needs a text message")
	}
	s, err := p.session(t.Request.SessionID)
	if err != nil {
		return nil, err
	}
	once, err := memory.PrimaryRequestOnceID(t.Request.TaskID)
	if err == nil && t.Turn() > 0 { // the caller's answer to the question the task asked
		once += "/" + strconv.Itoa(t.Turn())
		err = memory.ValidateOnceID(once)
	}
	if err != nil {
		return nil, a2a.NewError(a2a.CodeInvalidInput, "primary: %v", err)
	}
	turn, err := s.SendOnce(ctx, once, text, map[string]string{"a2aTask": t.Request.TaskID, "a2aCaller": t.Request.Caller})
	if err != nil {
		return nil, err
	}
	ans, err := s.WaitAnswer(ctx, turn.Seq)
	if te, ok := errors.AsType[*chat.TurnError](err); ok {
		return nil, a2a.NewError(a2a.CodeExecutionFailed, "%s", te.Turn.Meta[chat.MetaError])
	}
	if err != nil {
		return nil, err
	}
	if q := p.leftToUser(ctx, s, turn.Seq, ans.Seq); q != nil {
		if q.Auth != nil {
			return agent.AskAuth(ans.Content, *q.Auth), nil
		}
		return agent.Ask(ans.Content, q.Options...), nil
	}
	return agent.TextResult(ans.Content), nil
}

// leftToUser returns the question of a sub-task that the run answering
// the user's turn (the turns between from and to) started or answered and
// that waits for input as the run ends: the model handed it to the user.
// With several, their options are left out (the answer's text asks them
// all); nil when there is none.
func (p *Primary) leftToUser(ctx context.Context, s *chat.Session, from, to int64) *a2a.Question {
	var asked []*a2a.Question
	seen := map[string]bool{}
	for _, t := range s.Turns() {
		if t.Seq <= from || t.Seq >= to || t.Role != memory.RoleTool {
			continue
		}
		id := cmp.Or(memory.MetaValue(t.Meta, chat.MetaStartedTask), memory.MetaValue(t.Meta, chat.MetaAnsweredTask))
		if id == "" || seen[id] {
			continue
		}
		seen[id] = true
		info, err := p.opts.Caller.Task(ctx, id)
		if err != nil {
			p.opts.Logger.Warn("primary: read a sub-task", zap.String("task", id), zap.Error(err))
			continue
		}
		if info.WaitingForInput() && info.Asked.Question != nil {
			asked = append(asked, info.Asked.Question)
		}
	}
	switch len(asked) {
	case 0:
		return nil
	case 1:
		return asked[0]
	}
	return &a2a.Question{Text: "(several questions)"}
}

// session returns the running loop of id, starting it when needed.
func (p *Primary) session(id string) (*chat.Session, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return nil, chat.ErrClosed
	}
	if w, ok := p.sessions[id]; ok {
		select {
		case <-w.done: // stopped on its own: start it again
		default:
			w.seen.Store(time.Now().UnixNano())
			return w.s, nil
		}
	}
	w := &watched{done: make(chan struct{})}
	w.seen.Store(time.Now().UnixNano())
	s, err := chat.New(chat.Options{
		SessionID: id, Model: p.opts.Model, Caller: p.opts.Caller, Agents: p.opts.Agents, Resolver: p.opts.Resolver,
		Memory: p.opts.Memory, Chat: p.opts.Chat, MaxToolArgumentBytes: p.opts.MaxToolArgumentBytes, MemoryRetryBound: p.opts.MemoryRetryBound, Logger: p.opts.Logger,
		OnEvent: func(ev chat.Event) {
			if ev.Kind == chat.EventTurn {
				w.seen.Store(time.Now().UnixNano())
			}
		},
	})
	if err != nil {
		return nil, a2a.NewError(a2a.CodeInvalidInput, "%v", err)
	}
	w.s = s
	p.sessions[id] = w
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		defer close(w.done)
		if err := s.Run(context.Background()); err != nil {
			p.opts.Logger.Warn("primary: the session's loop stopped", zap.String("session", id), zap.Error(err))
		}
	}()
	return s, nil
}

// sweep stops watching the sessions idle for opts.Idle with no sub-task pending.
func (p *Primary) sweep() {
	defer p.wg.Done()
	component.Every(p.stop, max(p.opts.Idle/4, 10*time.Millisecond), func() {
		cutoff := time.Now().Add(-p.opts.Idle).UnixNano()
		p.mu.Lock()
		defer p.mu.Unlock()
		for id, w := range p.sessions {
			if w.seen.Load() < cutoff && len(w.s.Pending()) == 0 {
				delete(p.sessions, id)
				go func() { _ = w.s.Close() }()
			}
		}
	})
}

// Watching lists the sessions whose loop runs.
func (p *Primary) Watching() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make([]string, 0, len(p.sessions))
	for id := range p.sessions {
		out = append(out, id)
	}
	return out
}

// Close stops every session's loop and waits for them. Idempotent.
func (p *Primary) Close() error {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil
	}
	p.closed = true
	close(p.stop)
	list := make([]*watched, 0, len(p.sessions))
	for _, w := range p.sessions {
		list = append(list, w)
	}
	p.mu.Unlock()
	var errs []error
	for _, w := range list {
		errs = append(errs, w.s.Close())
	}
	p.wg.Wait()
	return errors.Join(errs...)
}

// buildPrimary builds the Primary on h: the host's directory (a Lister)
// lists and vets the agents, a caller of its own name starts the sub-tasks.
// The host stops the agent first, then the sessions' loops, then the caller
// and the directory.
func buildPrimary(h *node.Host, name string) error {
	n := h.Node
	if bound, most := n.Config.LLMTurnBound(), n.Config.Agent.MaxTaskDuration; bound > most { // long work must stay below the broker's consumer_timeout
		return fmt.Errorf("agents: serve %s: %w: llm.timeout %s × (chat.max_tool_rounds %d + 1) = %s exceeds agent.max_task_duration %s, "+
			"which must stay below bus.consumer_timeout: lower llm.timeout or chat.max_tool_rounds, or raise agent.max_task_duration "+
			"together with bus.consumer_timeout and the broker's consumer_timeout (docs/llm-agents.md)",
			KindPrimary, llmagent.ErrDeadlineTooLong, n.Config.LLM.Timeout, n.Config.Chat.MaxToolRounds, bound, most)
	}
	model, err := n.Model()
	if err != nil {
		return fmt.Errorf("agents: serve %s: %w", KindPrimary, err)
	}
	d, err := h.Directory(node.Lister)
	if err != nil {
		return err
	}
	resolver, err := h.Resolver()
	if err != nil {
		return err
	}
	c, err := h.Caller(name)
	if err != nil {
		return err
	}
	p, err := NewPrimary(PrimaryOptions{Model: model, Caller: c, Agents: tools.DirectoryLister{Directory: d}, Resolver: resolver,
		Memory: n.Memory, Chat: n.Config.Chat, MaxToolArgumentBytes: n.Config.LLM.MaxToolArgumentBytes, MemoryRetryBound: n.Config.Memory.RetryBound, Logger: n.Log})
	if err != nil {
		return err
	}
	if err := h.OnStop(node.TierWork, "primary sessions", p.Close); err != nil {
		return err
	}
	_, err = h.Agent(PrimaryCard(name), p.Register)
	return err
}
