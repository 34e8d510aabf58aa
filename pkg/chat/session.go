// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package chat

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"
	"go.uber.org/zap"

	"github.com/a2abus/a2abus/config"
	"github.com/a2abus/a2abus/internal/component"
	"github.com/a2abus/a2abus/memory"
	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/caller"
	"github.com/a2abus/a2abus/pkg/llm"
	"github.com/a2abus/a2abus/pkg/tools"
)

// Sentinel errors of a Session.
var (
	// ErrInvalidOptions: New was given incomplete or invalid options.
	ErrInvalidOptions = errors.New("chat: invalid options")
	// ErrClosed: the session was closed, or its Run ended.
	ErrClosed = errors.New("chat: closed")
	// ErrRunning: Run was called twice.
	ErrRunning = errors.New("chat: already running")
	// ErrEmptyMessage: Send was given an empty text.
	ErrEmptyMessage = errors.New("chat: empty message")
	// ErrBudgetExhausted: the session spent its token budget (chat.token_budget);
	// the model is not asked again.
	ErrBudgetExhausted = errors.New("chat: token budget spent")
	// errSuperseded: another process answered the same inputs first.
	errSuperseded = errors.New("chat: the inputs were answered by another process")
)

// Defaults of Options.
const (
	DefaultLeaseTTL     = 30 * time.Second
	DefaultPollInterval = time.Second
	DefaultStateTTL     = 7 * 24 * time.Hour
)

// Caller is what a session needs of the calling side (*caller.Caller is
// one): start sub-tasks watched from before their publish, so the tools
// report every status update (tools.Deps.OnStatus).
type Caller interface {
	tools.Invoker
	tools.Watcher
}

// Memory is what a session needs of working memory (memory.Memory is one).
type Memory interface {
	memory.Store
	memory.Conversations
	memory.Batcher
}

// Options configures a Session.
type Options struct {
	// SessionID is the conversation. Required.
	SessionID string
	// Model answers. Required.
	Model llm.Client
	// Caller starts the sub-tasks of invoke_agent; its Run must be running
	// (in this process or a replica) for their notifications. Required.
	Caller Caller
	// Agents answers list_known_agents. Required.
	Agents tools.Lister
	// Resolver vets invoke_agent's targets first; nil sends them as given.
	Resolver caller.Resolver
	// Memory holds the conversation and the session's chat state. Required.
	Memory Memory
	// Chat bounds the loop (config.ChatConfig); zero fields take the
	// config package's defaults, an empty SystemPrompt DefaultSystemPrompt.
	Chat config.ChatConfig
	// MaxToolArgumentBytes bounds the arguments of each tool call of the
	// model (llm.max_tool_argument_bytes): longer ones are refused before
	// they are parsed (tools.BoundArguments). 0 means tools.DefaultMaxArgumentBytes.
	MaxToolArgumentBytes int
	// LeaseTTL is how long a run lease lives without renewal; default 30s.
	LeaseTTL time.Duration
	// PollInterval is how often a session with unhandled inputs retries a
	// lease another process holds; default 1s.
	PollInterval time.Duration
	// StateTTL is how long the session's cursor and token count are kept; default 7 days.
	StateTTL time.Duration
	// MemoryRetryBound is how long storing a step of a run rides out an
	// outage of working memory (retried with backoff) before the run fails;
	// default memory.DefaultRetryBound.
	MemoryRetryBound time.Duration
	// OnEvent, when set, receives the session's events one at a time, in
	// order; it must not block for long.
	OnEvent func(Event)
	// Owner names this process in the lease; default a random UUID.
	Owner string
	// Logger receives one line per failed run; nil means no logging.
	Logger *zap.Logger
}

func (o *Options) normalize() error {
	var missing []string
	for name, absent := range map[string]bool{"Model": o.Model == nil, "Caller": o.Caller == nil, "Agents": o.Agents == nil, "Memory": o.Memory == nil} {
		if absent {
			missing = append(missing, name)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("%w: %s required", ErrInvalidOptions, strings.Join(slices.Sorted(slices.Values(missing)), ", "))
	}
	if err := a2a.ValidateSessionID(o.SessionID); err != nil {
		return fmt.Errorf("%w: session id: %w", ErrInvalidOptions, err)
	}
	c := &o.Chat
	for name, v := range map[string]int{"max_tool_rounds": c.MaxToolRounds, "token_budget": c.TokenBudget,
		"max_history_turns": c.MaxHistoryTurns, "max_history_chars": c.MaxHistoryChars} {
		if v < 0 {
			return fmt.Errorf("%w: chat.%s is %d, must not be negative", ErrInvalidOptions, name, v)
		}
	}
	def := func(v *int, d int) {
		if *v == 0 {
			*v = d
		}
	}
	if o.MaxToolArgumentBytes < 0 {
		return fmt.Errorf("%w: llm.max_tool_argument_bytes is %d, must not be negative", ErrInvalidOptions, o.MaxToolArgumentBytes)
	}
	def(&o.MaxToolArgumentBytes, config.DefaultLLMMaxToolArgumentBytes)
	def(&c.MaxToolRounds, config.DefaultMaxToolRounds)
	def(&c.MaxHistoryTurns, config.DefaultMaxHistoryTurns)
	def(&c.MaxHistoryChars, config.DefaultMaxHistoryChars)
	if strings.TrimSpace(c.SystemPrompt) == "" {
		c.SystemPrompt = DefaultSystemPrompt
	}
	for _, d := range []struct {
		v   *time.Duration
		def time.Duration
	}{{&o.LeaseTTL, DefaultLeaseTTL}, {&o.PollInterval, DefaultPollInterval}, {&o.StateTTL, DefaultStateTTL}, {&o.MemoryRetryBound, memory.DefaultRetryBound}} {
		if *d.v < 0 {
			return fmt.Errorf("%w: negative duration %s", ErrInvalidOptions, *d.v)
		}
		if *d.v == 0 {
			*d.v = d.def
		}
	}
	if o.LeaseTTL < 3*time.Millisecond {
		return fmt.Errorf("%w: LeaseTTL %s is too short", ErrInvalidOptions, o.LeaseTTL)
	}
	if o.Owner == "" {
		o.Owner = uuid.NewString()
	}
	if o.Logger == nil {
		o.Logger = zap.NewNop()
	}
	return nil
}

// Session is the chat loop of one session: it watches the conversation
// and runs the model for each input turn not handled yet (see the package
// doc). Send, Wait, WaitAnswer and Pending are safe for concurrent use.
type Session struct {
	opts  Options
	log   *zap.Logger
	keys  memory.ChatKeys // the session's chat state: lease, cursor, tokens spent
	lease memory.Lease
	set   *tools.Set
	state *state

	life *component.Runner // Run once; Close stops it, bounded

	emitMu sync.Mutex

	mustSee atomic.Int64 // the newest seq this process appended: seen before the next run
}

// New validates opts and builds the session's tools. Call Run.
func New(opts Options) (*Session, error) {
	if err := opts.normalize(); err != nil {
		return nil, err
	}
	k, err := memory.ChatStateKeys(opts.SessionID)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidOptions, err)
	}
	s := &Session{opts: opts, log: opts.Logger.With(zap.String("session", opts.SessionID)), keys: k, state: newState(), life: component.New(ErrClosed, ErrRunning)}
	s.lease = memory.Lease{Store: opts.Memory, Key: k.Lease, Owner: opts.Owner, TTL: opts.LeaseTTL}
	s.set, err = tools.New(tools.Deps{
		Caller: opts.Caller, Agents: opts.Agents, Resolver: opts.Resolver, Memory: opts.Memory,
		SessionID: opts.SessionID, Logger: opts.Logger,
		OnStatus: func(_ string, st *a2a.TaskStatus) { s.emit(Event{Kind: EventStatus, Status: st}) },
	})
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidOptions, err)
	}
	return s, nil
}

// ID is the session id.
func (s *Session) ID() string { return s.opts.SessionID }

// Send appends a user turn with text (and meta, which may be nil) to the
// conversation and returns it; Run answers it.
func (s *Session) Send(ctx context.Context, text string, meta map[string]string) (memory.Turn, error) {
	if strings.TrimSpace(text) == "" {
		return memory.Turn{}, ErrEmptyMessage
	}
	t, err := s.opts.Memory.AppendTurn(ctx, s.opts.SessionID, userTurn(text, meta))
	if err != nil {
		return memory.Turn{}, fmt.Errorf("chat: append the user turn to %q: %w", s.opts.SessionID, err)
	}
	return t, nil
}

// SendOnce is Send made idempotent by id (memory.ValidateOnceID): the first
// call with id appends the turn, a later one returns the turn stored then
// (a redelivered task is one user turn, not two).
func (s *Session) SendOnce(ctx context.Context, id, text string, meta map[string]string) (memory.Turn, error) {
	if strings.TrimSpace(text) == "" {
		return memory.Turn{}, ErrEmptyMessage
	}
	t, _, err := s.opts.Memory.AppendTurnOnce(ctx, s.opts.SessionID, id, userTurn(text, meta))
	if err != nil {
		return memory.Turn{}, fmt.Errorf("chat: append the user turn %q to %q: %w", id, s.opts.SessionID, err)
	}
	return t, nil
}

// userTurn is a KindUser turn with text and meta.
func userTurn(text string, meta map[string]string) memory.Turn {
	m := map[string]string{MetaKind: KindUser}
	for k, v := range meta {
		if k != MetaKind {
			m[k] = v
		}
	}
	return memory.Turn{Role: memory.RoleUser, Content: text, Meta: m}
}

// Wait blocks until the conversation settled after turn seq from: every
// input from it on was handled and every sub-task started since was
// notified, the answers to those notifications included. Run must be running.
func (s *Session) Wait(ctx context.Context, from int64) (*Settled, error) {
	for {
		ch := s.state.wait()
		if st, ok := s.state.settled(from); ok {
			return st, nil
		}
		if err := s.block(ctx, ch); err != nil {
			if p := s.state.pendingTasks(); len(p) > 0 {
				return nil, fmt.Errorf("chat: wait for turn %d of %q (sub-tasks still pending: %s): %w", from, s.opts.SessionID, strings.Join(p, ", "), err)
			}
			return nil, fmt.Errorf("chat: wait for turn %d of %q: %w", from, s.opts.SessionID, err)
		}
	}
}

// WaitAnswer blocks until the input turn seq was answered, and returns the
// answer (a KindAnswer turn) or the failure (a KindError turn, with a *TurnError).
func (s *Session) WaitAnswer(ctx context.Context, seq int64) (memory.Turn, error) {
	for {
		ch := s.state.wait()
		if t, ok := s.state.answer(seq); ok {
			if t.Meta[MetaKind] == KindError {
				return t, &TurnError{Turn: t}
			}
			return t, nil
		}
		if err := s.block(ctx, ch); err != nil {
			return memory.Turn{}, fmt.Errorf("chat: wait for the answer to turn %d of %q: %w", seq, s.opts.SessionID, err)
		}
	}
}

// block waits for ch, ctx or the end of Run.
func (s *Session) block(ctx context.Context, ch <-chan struct{}) error {
	select {
	case <-ch:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	case <-s.life.Done():
		return ErrClosed
	case <-s.life.AfterClose(): // closed before Run ever started
		return ErrClosed
	}
}

// Pending lists the sub-tasks the conversation started, or whose question
// it answered, whose next notification has not arrived yet.
func (s *Session) Pending() []string { return s.state.pendingTasks() }

// Questions returns the notifications of the questions that the
// conversation's sub-tasks wait on and that nobody answered: the model
// saw each (its run handled the notification) and did not answer it with
// invoke_agent and task_id, so it is the user's to answer — the user's
// next turn, which the model passes on. Oldest first; a question answered,
// or whose task ended (timed out, canceled), is no longer listed.
func (s *Session) Questions() []memory.Turn { return s.state.questions() }

// Turns returns the conversation as this process has seen it so far.
func (s *Session) Turns() []memory.Turn {
	turns, _, _ := s.state.snapshot()
	return turns
}

// closeTimeout bounds Close.
const closeTimeout = 10 * time.Second

// Close stops Run and waits for it, within a bound. Idempotent.
func (s *Session) Close() error {
	return s.life.Close(fmt.Sprintf("chat: session %q", s.opts.SessionID), closeTimeout)
}

// emit hands ev to the front end.
func (s *Session) emit(ev Event) {
	if s.opts.OnEvent == nil {
		return
	}
	s.emitMu.Lock()
	defer s.emitMu.Unlock()
	s.opts.OnEvent(ev)
}
