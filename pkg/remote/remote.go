// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

// Package remote makes a bus agent of a remote A2A agent: an agent that
// speaks A2A over HTTP (JSON-RPC or HTTP+JSON, protocol 1.0 or 0.3), built
// with any A2A SDK. The bridge consumes agent.task.<Name> like any agent,
// calls the remote with a2a-go's a2aclient, and maps the exchange
// (docs/a2a-remote.md):
//
//   - the remote's card is fetched at start and every CardCheckInterval;
//     its skills become the bus card's, announced after each good check
//     (the directory's lastSeen) and held while checks fail;
//   - a task is sent as a message (streamed when the card says the remote
//     streams, else sent and then read until it ends its turn); the
//     remote's status updates come back as the task's status, its
//     artifacts and final state as the result;
//   - a cancel of the bus task, or its deadline, is forwarded as CancelTask;
//   - a remote task that waits for input ends the bus task's turn with a
//     question (agent.Ask, AskAuth); the caller's answer, the next turn, is
//     sent to the same remote task and context;
//   - transient HTTP failures (connection errors, 502, 503, 504, 429 after
//     its Retry-After) are retried with backoff within the task's deadline;
//     every other failure is a typed *a2a.Error naming the remote.
//
// `a2abus serve --remote NAME` runs one (Serve); Build adds the bridges of
// any configured remotes to a node.Host, for any process that serves them.
//
// Life cycle: New → Start (the card is fetched) → build the agent with Card
// and Register its skills → Run beside the agent (the card checks) → close
// the agent, then the bridge.
package remote

import (
	"errors"
	"net/http"
	"time"

	"go.uber.org/zap"

	"github.com/a2abus/a2abus/config"
	"github.com/a2abus/a2abus/pkg/a2a"
)

// Errors of the bridge.
var (
	// ErrInvalidOptions: the options are incomplete or out of range.
	ErrInvalidOptions = errors.New("remote: invalid options")
	// ErrUnknownRemote: no remote agent of that name is configured.
	ErrUnknownRemote = errors.New("remote: no such remote agent")
	// ErrNoCard: the remote's card could not be fetched or used at start.
	ErrNoCard = errors.New("remote: no usable agent card")
	// ErrNotStarted: Card, Register or Run was called before Start succeeded.
	ErrNotStarted = errors.New("remote: not started")
	// ErrClosed: the bridge was closed.
	ErrClosed = errors.New("remote: closed")
)

// Spec declares one remote agent: its bus name, its card and how to
// authenticate to it (config's remote.agents, or a well-known entry with a
// url: see Lookup).
type Spec struct {
	// Name is the agent's bus name. Required.
	Name string
	// CardURL is the URL of its agent card. Required.
	CardURL string
	// Auth holds its credential (the bearer token or API key fields of a
	// config.RemoteAgent; Name and CardURL are not read) and Transport the
	// transport to prefer.
	Auth config.RemoteAgent
	// Source names where the remote was declared, for errors
	// (remote.agents[0], the well-known file).
	Source string
	// Fallback, when set, is the card served when the remote's cannot be
	// fetched at start (a well-known entry's skills); the agent is then not
	// announced until a card check succeeds.
	Fallback *a2a.AgentCard
}

// Observer watches the bridge's calls and card checks (*ops.Ops is one; a
// nil *ops.Ops observes nothing).
type Observer interface {
	// RemoteCall starts one call (op) to remote under the task's trace; it
	// returns the trace the HTTP requests carry and done, told the outcome.
	RemoteCall(remote, op string, parent a2a.Trace) (a2a.Trace, func(outcome string, err error))
	// RemoteCardCheck is told each periodic fetch of remote's card.
	RemoteCardCheck(remote string, ok bool, at time.Time)
}

// Options configures a Bridge. Zero durations and sizes take the defaults
// (the remote section's, config.DefaultRemote*).
type Options struct {
	// Spec is the remote agent. Required.
	Spec Spec
	// CardCheckInterval, CardTimeout, PollInterval, CancelTimeout,
	// RetryMin and RetryMax are the remote section's keys (config.RemoteConfig).
	CardCheckInterval, CardTimeout, PollInterval, CancelTimeout, RetryMin, RetryMax time.Duration
	// MaxCardBytes bounds the card, MaxResponseBytes each HTTP response.
	MaxCardBytes, MaxResponseBytes int64
	// Transport carries the HTTP requests; nil is a clone of
	// http.DefaultTransport (proxy from the environment).
	Transport http.RoundTripper
	// Observer, when set, counts and traces the calls.
	Observer Observer
	// Logger receives the card checks and failures; nil means none.
	Logger *zap.Logger
}

// OptionsFor returns the options of spec under the remote section of cfg.
func OptionsFor(cfg *config.Config, spec Spec) Options {
	r := cfg.Remote
	return Options{Spec: spec, CardCheckInterval: r.CardCheckInterval, CardTimeout: r.CardTimeout, PollInterval: r.PollInterval,
		CancelTimeout: r.CancelTimeout, RetryMin: r.RetryMin, RetryMax: r.RetryMax,
		MaxCardBytes: int64(r.MaxCardBytes), MaxResponseBytes: int64(r.MaxResponseBytes)}
}

// withDefaults fills the zero fields.
func (o Options) withDefaults() Options {
	def := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	def(&o.CardCheckInterval, config.DefaultRemoteCardCheckInterval)
	def(&o.CardTimeout, config.DefaultRemoteCardTimeout)
	def(&o.PollInterval, config.DefaultRemotePollInterval)
	def(&o.CancelTimeout, config.DefaultRemoteCancelTimeout)
	def(&o.RetryMin, config.DefaultRemoteRetryMin)
	def(&o.RetryMax, config.DefaultRemoteRetryMax)
	if o.MaxCardBytes <= 0 {
		o.MaxCardBytes = config.DefaultRemoteMaxCardBytes
	}
	if o.MaxResponseBytes <= 0 {
		o.MaxResponseBytes = config.DefaultRemoteMaxResponseBytes
	}
	if o.Logger == nil {
		o.Logger = zap.NewNop()
	}
	return o
}
