// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package node

import (
	"context"
	"crypto/ed25519"
	"fmt"
	"io"
	"os"

	"go.uber.org/zap"

	"github.com/a2abus/a2abus/directory"
	"github.com/a2abus/a2abus/memory"
	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/agent"
	"github.com/a2abus/a2abus/pkg/caller"
)

// Caller builds the caller called name on the node, with the caller.* and
// memory.result_ttl settings (memory_retry_bound keeps a result waiting for
// memory below the broker's consumer_timeout), memory.max_context_messages
// and memory.conversation_ttl (a context's history), the guard and the codec. A nil resolver
// publishes targets as given; a directory (or a directory.PatientResolver)
// vets them and checks their input against the skills' schemas first.
func (n *Node) Caller(name string, resolver caller.Resolver) (*caller.Caller, error) {
	return n.newCaller(name, resolver, false)
}

// contextMessages is caller.Options.MaxContextMessages for
// memory.max_context_messages: its 0 (no context history) is the option's
// negative, the option's 0 being its default.
func contextMessages(n int) int {
	if n == 0 {
		return -1
	}
	return n
}

// TransientCaller is Caller for a short-lived program (a generated name, a
// one-off script): its response queue expires caller.DefaultTransientExpiry
// after its last consumer leaves (caller.Options.Transient), so no queue is
// left behind per run. Responses that come after the expiry are lost and
// their tasks time out; a long-running caller that must keep results across
// restarts uses Caller. A name is either durable or transient, never both.
func (n *Node) TransientCaller(name string, resolver caller.Resolver) (*caller.Caller, error) {
	return n.newCaller(name, resolver, true)
}

func (n *Node) newCaller(name string, resolver caller.Resolver, transient bool) (*caller.Caller, error) {
	cfg := n.Config
	var streamLen int64
	if cfg.Audit.ExportsStream() {
		streamLen = int64(cfg.Audit.StreamMaxLen)
	}
	var auditOut io.Writer
	if cfg.Audit.ExportsStdout() {
		auditOut = os.Stdout
	}
	c, err := caller.New(caller.Options{
		Name: name, Transient: transient, Bus: n.Bus, Memory: n.Memory, Resolver: resolver, Guard: n.Guard,
		ResultTTL: cfg.Memory.ResultTTL, AuditTTL: cfg.Audit.Retention, PreviewRunes: cfg.Audit.PreviewChars,
		KeepSecrets: !cfg.Redact.StoredResults, AuditStreamMaxLen: streamLen, AuditWriter: auditOut, DefaultTimeout: cfg.Caller.DefaultTimeout, MaxTimeout: cfg.Caller.MaxTimeout,
		DefaultWait: cfg.Caller.DefaultWait, MaxWait: cfg.Caller.MaxWait,
		SweepInterval: cfg.Caller.SweepInterval, MaxDepth: cfg.Caller.MaxDepth, MemoryRetryBound: cfg.Caller.MemoryRetryBound,
		InputTimeout: cfg.Caller.InputTimeout, MaxTaskHistory: cfg.Caller.MaxTaskHistory, Concurrency: cfg.Caller.Concurrency,
		MaxContextMessages: contextMessages(cfg.Memory.MaxContextMessages), ContextTTL: cfg.Memory.ConversationTTL,
		Codec: n.Codec, Logger: n.Log, Observer: n.Ops.CallerObserver(), Identities: n.Identities,
	})
	if err != nil {
		return nil, fmt.Errorf("node: caller %q: %w", name, err)
	}
	n.Ops.Expect("caller " + name)
	return c, nil
}

// Agent builds the agent of card on the node, with the agent.* settings
// (max_task_duration caps every task below the broker's consumer_timeout;
// signing_key_file signs its cards), bus.max_attempts, caller.max_depth,
// identity.*, the announce secret, the guard's
// policy (who may call it), the working memory (cancels recorded while it
// was not running) and the codec. Register its skills, then Run it.
func (n *Node) Agent(card a2a.AgentCard) (*agent.Agent, error) {
	cfg := n.Config
	var key ed25519.PrivateKey
	if cfg.Agent.SigningKeyFile != "" {
		k, err := agent.LoadSigningKey(cfg.Agent.SigningKeyFile)
		if err != nil {
			return nil, fmt.Errorf("node: agent %q: agent.signing_key_file: %w", card.Name, err)
		}
		key = k
	}
	a, err := agent.New(agent.Options{
		Card: card, Bus: n.Bus, Concurrency: cfg.Agent.Concurrency, MaxAttempts: cfg.Bus.MaxAttempts,
		StopTimeout: cfg.Agent.StopTimeout, MaxTaskDuration: cfg.Agent.MaxTaskDuration, Ephemeral: cfg.Agent.Ephemeral, MaxTasks: cfg.Agent.MaxTasks,
		IdleTimeout: cfg.Agent.IdleTimeout, AnnounceInterval: cfg.Agent.AnnounceInterval, MaxDepth: cfg.Caller.MaxDepth,
		AnnounceSecret: []byte(cfg.Directory.AnnounceSecret), Codec: n.Codec, Logger: n.Log,
		Memory: n.Memory, Policy: n.Guard, Observer: n.Ops.AgentObserver(), Identities: n.Identities, SigningKey: key,
	})
	if err != nil {
		return nil, fmt.Errorf("node: agent %q: %w", card.Name, err)
	}
	n.Ops.Expect("agent " + card.Name)
	return a, nil
}

// DirectoryRole is what a directory is built for.
type DirectoryRole int

// The roles of a directory.
const (
	// Lister asks every running agent to announce itself at start and lists
	// what it hears (a2abus agents, chat, mcp, the gateway, the demo, the
	// Primary, the Orchestrator). With a working memory it restores, and
	// keeps up to date, the listing the deployment's directories share there
	// (memory.DirectoryListingKey).
	Lister DirectoryRole = iota + 1
	// Keeper is the long-running directory: it also restores and persists
	// directory.known_agents_file (a2abus directory), and shares its
	// listing as a Lister does when it has a working memory.
	Keeper
	// Vetter only vets the targets of calls (a2abus invoke, an agent's
	// delegations): it asks the running agents to announce only when a
	// look-up misses, so starting one does not make every agent re-announce.
	Vetter
)

// Directory builds a directory on the node's bus for role, with the
// well-known agents, the announce secret, directory.* (max_agents included)
// and the codec.
func (n *Node) Directory(role DirectoryRole) (*directory.Directory, error) {
	cfg := n.Config
	wk, err := WellKnown(cfg, n.Log)
	if err != nil {
		return nil, err
	}
	known := ""
	if role == Keeper {
		known = cfg.Directory.KnownAgentsFile
	}
	var shared directory.SharedStore
	sharedKey := ""
	if role != Vetter && n.Memory != nil { // the directories that list share their listing in working memory
		if sharedKey, err = memory.DirectoryListingKey(cfg.Bus.Exchange); err != nil {
			return nil, fmt.Errorf("node: directory: %w", err)
		}
		shared = n.Memory
	}
	if cfg.Directory.AnnounceSecret == "" && !cfg.Bus.Embedded() {
		warn := n.Log.Debug // a short-lived lister or vetter: the long-running directory says it
		if role == Keeper {
			warn = n.Log.Warn
		}
		warn("directory.announce_secret is not set: any process on the bus can announce a card")
	}
	d, err := directory.New(directory.Options{
		Bus: n.Bus, Exchange: cfg.Bus.Exchange, WellKnown: wk, KnownAgentsFile: known, Shared: shared, SharedKey: sharedKey,
		WellKnownWait:  cfg.Directory.WellKnownWait,
		AnnounceSecret: []byte(cfg.Directory.AnnounceSecret), StaleAfter: cfg.EffectiveStaleAfter(),
		ForgetAfter: cfg.Directory.ForgetAfter, MaxAgents: cfg.Directory.MaxAgents, QueryOnMiss: role == Vetter,
		Codec: n.Codec, Logger: n.Log, Identities: n.Identities,
		Trust: directory.Trust(cfg.Directory.Trust), PinsFile: cfg.Directory.PinsFile,
	})
	if err != nil {
		return nil, fmt.Errorf("node: directory: %w", err)
	}
	n.Ops.WatchDirectory(d)
	return d, nil
}

// StartDirectory builds a directory for role and runs it until stop is
// called (or ctx ends); stop waits for it to return. A directory that stops
// on its own before then logs why.
func (n *Node) StartDirectory(ctx context.Context, role DirectoryRole) (d *directory.Directory, stop func(), err error) {
	d, err = n.Directory(role)
	if err != nil {
		return nil, nil, err
	}
	runCtx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := d.Run(runCtx); err != nil && runCtx.Err() == nil {
			n.Log.Error("directory stopped", zap.Error(err))
		}
	}()
	return d, func() { cancel(); <-done }, nil
}
