// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package converse

import (
	"fmt"
	"time"

	"github.com/a2abus/a2abus/pkg/a2a"
)

// Mode is how drafts become sends.
type Mode string

// The modes of a conversation.
const (
	// Manual waits for an approval (or an edited text) before each send.
	Manual Mode = "manual"
	// SemiAuto sends a draft unless its confidence is below the threshold.
	SemiAuto Mode = "semi_auto"
	// FullAuto sends every draft.
	FullAuto Mode = "full_auto"
)

// ParseMode returns the mode named s ("" is Manual, the default).
func ParseMode(s string) (Mode, error) {
	switch Mode(s) {
	case "":
		return Manual, nil
	case Manual, SemiAuto, FullAuto:
		return Mode(s), nil
	}
	return "", fmt.Errorf("%w: mode %q is not manual, semi_auto or full_auto", ErrInvalidSpec, s)
}

// State is where a conversation is in its turn.
type State string

// The states of a conversation's state machine. Paused is reported for a
// non-terminal conversation whose Paused flag is set.
const (
	Idle             State = "idle"
	Planning         State = "planning"
	WaitingLocal     State = "waiting_local"
	ReadyToSend      State = "ready_to_send"
	WaitingRemote    State = "waiting_remote"
	ProcessingRemote State = "processing_remote"
	Completed        State = "completed"
	Paused           State = "paused"
	Failed           State = "error"
	Stopped          State = "stopped"
)

// Terminal reports whether s ends the conversation.
func (s State) Terminal() bool { return s == Completed || s == Failed || s == Stopped }

// Names of the limits that end a conversation (Conversation.Limit).
const (
	LimitMaxTurns    = "max_turns"
	LimitMaxDuration = "max_duration"
	LimitMaxFailures = "max_failures"
	LimitTokenBudget = "token_budget"
)

// CauseLocalUnavailable is Conversation.Cause when the local agent did not
// answer a draft request (TIMEOUT, UNAVAILABLE, AGENT_NOT_FOUND): the
// conversation ends in error at once, for a person to restart the agent and
// reopen it (Orchestrator.Reopen, `converse resume`); it is not retried.
const CauseLocalUnavailable = "local_unavailable"

// Defaults of Limits and History (the protocol's).
const (
	DefaultMaxTurns        = 8
	DefaultMaxDuration     = 10 * time.Minute
	DefaultMaxFailures     = 3
	DefaultMaxHistoryTurns = 6
	DefaultMaxHistoryChars = 24_000
	DefaultMaxOutputChars  = 12_000
	DefaultLocalTimeout    = 60 * time.Second
	// DefaultToolUseTimeout is the local timeout's default, and its upper
	// bound, when the local agent may use tools (DefaultLocalTimeout bounds
	// it otherwise): the protocol's 60s, up to 120s with allow_tool_use.
	DefaultToolUseTimeout = 120 * time.Second
	// DefaultMaxSharedCalls is Options.MaxSharedCalls' default: the
	// protocol's maxConcurrentSharedCalls per local agent.
	DefaultMaxSharedCalls = 3
	DefaultRemoteTimeout  = 2 * time.Minute
	DefaultMaxHops        = 2
)

// Limits stop a conversation; zero values take the defaults.
type Limits struct {
	// MaxTurns is how many exchanges (a send and its reply) may happen.
	MaxTurns int `json:"maxTurns"`
	// MaxDuration bounds the conversation's wall time, pauses included.
	MaxDuration time.Duration `json:"maxDuration"`
	// MaxFailures is how many consecutive failed calls end it in error.
	MaxFailures int `json:"maxFailures"`
	// TokenBudget, when positive, ends it once the agents' reported
	// tokens_used add up to it.
	TokenBudget int64 `json:"tokenBudget,omitempty"`
	// LocalTimeout and RemoteTimeout bound one call to each agent.
	// LocalTimeout defaults to DefaultLocalTimeout (60s), or to
	// DefaultToolUseTimeout (120s) when the spec allows tool use, and may
	// not exceed that default.
	LocalTimeout  time.Duration `json:"localTimeout"`
	RemoteTimeout time.Duration `json:"remoteTimeout"`
}

// History bounds what the local agent is given each turn.
type History struct {
	MaxTurns       int `json:"maxTurns"`
	MaxChars       int `json:"maxChars"`
	MaxOutputChars int `json:"maxOutputChars"`
}

// Spec is what a conversation is started with.
type Spec struct {
	// Local drafts the messages; Remote answers them. LocalSkill and
	// RemoteSkill are the skills called.
	Local       string `json:"local"`
	LocalSkill  string `json:"localSkill"`
	Remote      string `json:"remote"`
	RemoteSkill string `json:"remoteSkill"`
	// Objective is the person's instruction to the local agent.
	Objective string `json:"objective"`
	Mode      Mode   `json:"mode"`
	// AllowToolUse tells the local agent it may use tools while drafting
	// (the draft request's constraints); it raises the local timeout's
	// default and bound to DefaultToolUseTimeout.
	AllowToolUse bool `json:"allowToolUse,omitempty"`
	// Threshold is the lowest confidence semi_auto sends without review
	// (default MEDIUM).
	Threshold a2a.Confidence `json:"threshold"`
	Limits    Limits         `json:"limits"`
	History   History        `json:"history"`
	// Chain is the call chain that led to the conversation (empty from the
	// command line; a handler's chain when an agent starts one).
	Chain []string `json:"chain,omitempty"`
	// Requester names who started it, for the audit (e.g. the OS user).
	Requester string `json:"requester,omitempty"`
	// Consent is the starter's explicit allowance of this pair (the
	// command's --allow): it opens the pair for this conversation as a
	// policy rule would; a refusal of the configured guard still wins.
	Consent bool `json:"consent,omitempty"`
}

// Role of a transcript entry.
const (
	RoleLocal  = "local_agent"
	RoleRemote = "remote_agent"
	RoleHuman  = "human"
)

// Entry is one message of the transcript.
type Entry struct {
	Turn int    `json:"turn"`
	Role string `json:"role"`
	Text string `json:"text"`
	// TaskID is the task that carried (remote) or produced (local) it.
	TaskID     string         `json:"taskId,omitempty"`
	Confidence a2a.Confidence `json:"confidence,omitempty"`
	TokensUsed int64          `json:"tokensUsed,omitempty"`
	// How is auto_sent, approved, edited or human for sent messages.
	How        string    `json:"how,omitempty"`
	At         time.Time `json:"at"`
	DurationMs int64     `json:"durationMs,omitempty"`
}

// How a message was sent.
const (
	SentAuto     = "auto_sent"
	SentApproved = "approved"
	SentEdited   = "edited"
	SentHuman    = "human"
)

// Pending is the turn in flight.
type Pending struct {
	Turn int `json:"turn"`
	// LocalTaskID is the draft request (waiting_local).
	LocalTaskID string `json:"localTaskId,omitempty"`
	// Draft is the local agent's draft (or the human text) once known.
	Draft      string         `json:"draft,omitempty"`
	Confidence a2a.Confidence `json:"confidence,omitempty"`
	HasDraft   bool           `json:"hasDraft,omitempty"`
	// Review says the draft waits for approve (manual, low confidence, takeover).
	Review string `json:"review,omitempty"`
	// How it is sent once approved.
	How string `json:"how,omitempty"`
	// Attempt counts sends of this turn (a failed send is retried);
	// RemoteTaskID is the send in flight.
	Attempt      int       `json:"attempt,omitempty"`
	RemoteTaskID string    `json:"remoteTaskId,omitempty"`
	SentAt       time.Time `json:"sentAt,omitzero"`
	LocalAt      time.Time `json:"localAt,omitzero"`
}

// Event is one thing that happened, for watchers and the audit.
type Event struct {
	At    time.Time `json:"at"`
	Turn  int       `json:"turn"`
	Kind  string    `json:"kind"`
	State State     `json:"state"`
	Text  string    `json:"text,omitempty"`
	Limit string    `json:"limit,omitempty"`
}

// Kinds of events.
const (
	EventState    = "state"
	EventDraft    = "draft"
	EventSent     = "sent"
	EventReply    = "reply"
	EventReview   = "review"
	EventFailure  = "failure"
	EventLimit    = "limit"
	EventControl  = "control"
	EventFinished = "finished"
	// EventWait: a call waits for a slot of the local agent (its draft
	// request in flight, or its shared calls).
	EventWait = "wait"
)

// maxEvents bounds the events kept in the record.
const maxEvents = 100

// Conversation is the durable record of one conversation.
type Conversation struct {
	ID           string   `json:"id"`
	Spec         Spec     `json:"spec"`
	Orchestrator string   `json:"orchestrator"`
	Session      string   `json:"session"`
	TraceID      string   `json:"traceId"`
	State        State    `json:"state"`
	Paused       bool     `json:"paused,omitempty"`
	TakenOver    bool     `json:"takenOver,omitempty"`
	Pending      *Pending `json:"pending,omitempty"`
	Transcript   []Entry  `json:"transcript,omitempty"`
	// FailedSends are the remote tasks of failed send attempts.
	FailedSends []string `json:"failedSends,omitempty"`
	Exchanges   int      `json:"exchanges"`
	Failures    int      `json:"failures"`
	TokensUsed  int64    `json:"tokensUsed"`
	Limit       string   `json:"limit,omitempty"`
	// Cause names what ended a conversation in error when it was not a
	// limit: CauseLocalUnavailable.
	Cause      string    `json:"cause,omitempty"`
	Reason     string    `json:"reason,omitempty"`
	AppliedSeq int64     `json:"appliedSeq"`
	Events     []Event   `json:"events,omitempty"`
	CreatedAt  time.Time `json:"createdAt"`
	UpdatedAt  time.Time `json:"updatedAt"`
	EndedAt    time.Time `json:"endedAt,omitzero"`
}

// Status is the state as reported: Paused for a paused, unfinished conversation.
func (c *Conversation) Status() State {
	if c.Paused && !c.State.Terminal() {
		return Paused
	}
	return c.State
}

// AwaitingApproval reports whether a draft (or a human text) waits for approve.
func (c *Conversation) AwaitingApproval() bool {
	return c.State == ReadyToSend && c.Pending != nil && c.Pending.Review != "" && !c.State.Terminal()
}

// event records e (bounded) and returns it.
func (c *Conversation) event(now time.Time, kind, text, limit string) Event {
	e := Event{At: now, Turn: c.turn(), Kind: kind, State: c.Status(), Text: text, Limit: limit}
	c.Events = append(c.Events, e)
	if len(c.Events) > maxEvents {
		c.Events = append([]Event(nil), c.Events[len(c.Events)-maxEvents:]...)
	}
	return e
}

// turn is the index of the turn in flight, or of the last one.
func (c *Conversation) turn() int {
	if c.Pending != nil {
		return c.Pending.Turn
	}
	return c.Exchanges
}

// sentTasks are the remote task ids of the transcript.
func (c *Conversation) sentTasks() map[string]bool {
	m := map[string]bool{}
	for _, e := range c.Transcript {
		if e.TaskID != "" {
			m[e.TaskID] = true
		}
	}
	return m
}
