// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package node

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/a2abus/a2abus/config"
	"github.com/a2abus/a2abus/directory"
	"github.com/a2abus/a2abus/internal/component"
	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/agent"
	"github.com/a2abus/a2abus/pkg/caller"
)

// Part is a long-running component a Host runs: Run blocks until its
// context ends (or it stops on its own, like an ephemeral agent), Close is
// idempotent and bounded. Agents, callers, directories, the exec bridge,
// chat sessions, the converse orchestrator and the MCP server are parts.
type Part interface {
	Run(ctx context.Context) error
	Close() error
}

// Tier says when a part stops: a Host stops its tiers in the order below,
// each once every part of the one before has returned.
type Tier int

// The tiers, in the order they stop.
const (
	// TierEntry parts take work from outside (agents, the MCP server, an
	// HTTP gateway). They stop taking it first, and drain what they took.
	TierEntry Tier = iota
	// TierWork parts work through callers (chat sessions, the Primary's
	// loops, the workflow engine, the converse orchestrator).
	TierWork
	// TierCallers are the callers: a response being stored completes
	// before the callers' waiters are woken, so the work above is answered.
	TierCallers
	// TierBackends are what entry parts ran on (the exec bridge's agent
	// process): stopped once nothing can send them work.
	TierBackends
	// TierDirectory is the host's directory, which the callers vetted
	// their targets with.
	TierDirectory
)

// RunFunc is a Part that is only a Run: it stops when its context ends,
// and its Close does nothing (a server loop, a watcher).
type RunFunc func(ctx context.Context) error

// Run calls f.
func (f RunFunc) Run(ctx context.Context) error { return f(ctx) }

// Close does nothing: f stops when its context ends.
func (RunFunc) Close() error { return nil }

// ErrHostClosed: a part was added to, or built on, a host that is closing.
var ErrHostClosed = errors.New("node: host closed")

// Host runs the parts of one process on a node and stops them in order.
// It is the one place that knows the order:
//
//  1. entry parts (agents, servers) stop taking work and drain it: an
//     agent's tasks get agent.stop_timeout, the rest are requeued;
//  2. the parts that work through callers stop;
//  3. the callers stop: their responses finish (or go back to the queue
//     for a replica) before anyone waiting on them is woken;
//  4. the backends (an agent process) stop;
//  5. the directory stops;
//  6. the node closes: the ops listener, the bus, the memory, the tracer.
//
// Parts of one tier stop together. A part that stops on its own before
// the host is closed — an ephemeral agent that spent its budget, a caller
// that failed — stops the host; Run then returns its error, if any.
//
// Build parts with Agent, Caller and Directory (or Add your own), then Run;
// or Start, work in the foreground (a CLI command's call), and Close.
type Host struct {
	// Node is what the host runs on; Close closes it last.
	Node *Node

	group    *component.Group
	mu       sync.Mutex
	dir      *directory.Directory
	vetWait  time.Duration
	closeErr error
	closed   chan struct{}
	once     sync.Once
}

// NewHost returns a host on n; closing the host closes n.
func NewHost(n *Node) *Host {
	return &Host{Node: n, group: component.NewGroup(), vetWait: n.Config.Directory.VetWait, closed: make(chan struct{})}
}

// Add adds p in tier under name (for the errors of its stop). It runs from
// Start on, at once if the host has started. On a closing host it returns
// ErrHostClosed and closes p.
func (h *Host) Add(tier Tier, name string, p Part) error {
	if err := h.group.Add(int(tier), name, p.Run, p.Close); err != nil {
		return errors.Join(fmt.Errorf("%w: %s", ErrHostClosed, name), p.Close())
	}
	return nil
}

// OnStop has close called when tier stops: for what has no Run of its own
// (a workflow engine, a store) but must be closed in the host's order.
func (h *Host) OnStop(tier Tier, name string, close func() error) error {
	if err := h.group.Add(int(tier), name, nil, close); err != nil {
		return errors.Join(fmt.Errorf("%w: %s", ErrHostClosed, name), close())
	}
	return nil
}

// Directory is the host's directory, built for role and added on first use;
// later calls return the same directory whatever their role. Callers built
// with Caller vet their targets through it.
func (h *Host) Directory(role DirectoryRole) (*directory.Directory, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.dir != nil {
		return h.dir, nil
	}
	d, err := h.Node.Directory(role)
	if err != nil {
		return nil, err
	}
	if err := h.Add(TierDirectory, "directory", d); err != nil {
		return nil, err
	}
	h.dir = d
	return d, nil
}

// SetVetWait overrides directory.vet_wait for the resolvers the host gives
// out from now on (a command's --directory-wait).
func (h *Host) SetVetWait(d time.Duration) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if d > 0 {
		h.vetWait = d
	}
}

// Resolver vets call targets through the host's directory (a Vetter when
// none was built yet), waiting directory.vet_wait for an agent it does not
// know yet to announce itself.
func (h *Host) Resolver() (directory.PatientResolver, error) {
	d, err := h.Directory(Vetter)
	if err != nil {
		return directory.PatientResolver{}, err
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	return directory.PatientResolver{Directory: d, Wait: h.vetWait}, nil
}

// Caller builds the caller called name (Node.Caller) with the host's
// Resolver and adds it; it stops after the entry and work parts.
func (h *Host) Caller(name string) (*caller.Caller, error) {
	r, err := h.Resolver()
	if err != nil {
		return nil, err
	}
	c, err := h.Node.Caller(name, r)
	if err != nil {
		return nil, err
	}
	if err := h.Add(TierCallers, "caller "+name, c); err != nil {
		return nil, err
	}
	return c, nil
}

// Agent builds the agent of card (Node.Agent), lets register add its
// skills (and middleware) and adds it; it stops first. The agent runs from
// Start on, or at once on a started host: its skills are registered before.
func (h *Host) Agent(card a2a.AgentCard, register func(*agent.Agent) error) (*agent.Agent, error) {
	a, err := h.Node.Agent(card)
	if err != nil {
		return nil, err
	}
	if register != nil {
		if err := register(a); err != nil {
			return nil, errors.Join(fmt.Errorf("node: agent %q: register: %w", card.Name, err), a.Close())
		}
	}
	if err := h.Add(TierEntry, "agent "+card.Name, a); err != nil {
		return nil, err
	}
	return a, nil
}

// Start runs every part added so far (and those added later, at once). The
// parts run until Close: ctx's cancellation does not stop them, only their
// order does.
func (h *Host) Start(ctx context.Context) { h.group.Start(ctx) }

// Done is closed when a part has stopped on its own; the host should then
// be closed.
func (h *Host) Done() <-chan struct{} { return h.group.Exited() }

// Run starts the host and blocks until ctx ends or a part stops on its own,
// then closes it (Close). A clean stop returns nil.
func (h *Host) Run(ctx context.Context) error {
	h.Start(ctx)
	select {
	case <-ctx.Done():
	case <-h.Done():
	}
	return h.Close()
}

// Close stops the parts tier by tier, then closes the node, and returns
// what went wrong, each error named by its part. Each part's stop is
// bounded by agent.stop_timeout plus a margin; Close is idempotent (a later
// call returns the first one's result).
func (h *Host) Close() error {
	h.once.Do(func() {
		h.closeErr = errors.Join(h.group.Stop(stopBound(h.Node.Config)), h.Node.Close())
		close(h.closed)
	})
	<-h.closed
	return h.closeErr
}

// stopMargin is what a part gets beyond agent.stop_timeout to return once
// asked to stop: a caller storing its last responses, a process exiting.
const stopMargin = 30 * time.Second

func stopBound(cfg *config.Config) time.Duration {
	return max(cfg.Agent.StopTimeout, 0) + stopMargin
}

// Build adds the parts of a program to a host (and may start work that
// needs the node, such as an agent process whose card names the agent).
type Build func(ctx context.Context, h *Host) error

// Serve is what a long-running program does: it opens the node of cfg (its
// bus connection named connName), starts the ops listener (ops.listen) and
// serves build on it (ServeOn).
func Serve(ctx context.Context, cfg *config.Config, connName string, log *zap.Logger, build Build) error {
	n, err := Open(ctx, cfg, connName, log)
	if err != nil {
		return err
	}
	if _, err := n.StartOps(ctx); err != nil { // metrics, health, readiness; closed with the node
		return errors.Join(err, n.Close())
	}
	return ServeOn(ctx, n, build)
}

// ServeOn lets build add its parts to a host on n and runs the host until
// ctx ends or a part stops on its own; n is closed last, whatever happened
// (a build error closes what was built).
func ServeOn(ctx context.Context, n *Node, build Build) error {
	h := NewHost(n)
	if err := build(ctx, h); err != nil {
		return errors.Join(err, h.Close())
	}
	defer time.AfterFunc(settleAfter, releaseMemory).Stop()
	return h.Run(ctx)
}

// settleAfter is how long after its parts start ServeOn returns the memory
// of the program's start-up to the operating system (releaseMemory).
var settleAfter = 2 * time.Second

// releaseMemory collects and returns the freed heap to the operating
// system. The start-up's garbage (package initialisation, configuration,
// schemas, dials: 2–3 MB) would otherwise stay resident in an idle agent:
// at the binaries' GOGC of 400 the heap's goal is 16 MB, so no collection
// runs while it idles (but the runtime's two-minute one), and the
// runtime's scavenger keeps what is under the goal. One collection of a
// heap of a few MB, once; a one-shot job that ends sooner never pays it.
// A variable for tests.
var releaseMemory = debug.FreeOSMemory
