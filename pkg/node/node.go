// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

// Package node is the one place a validated configuration becomes the parts
// of a2abus, for the a2abus binaries and for SDK programs alike. Open opens
// the bus and working memory the configuration names (RabbitMQ and Redis
// when their URLs are set, the embedded in-process ones for
// config.EmbeddedURL, and for an empty URL too, with a warning that cannot
// be missed: nothing outside the process reaches them) and
// builds the call guard; the Node it returns builds callers, agents and
// directories with every setting of the configuration: guard, limits, codec
// limits, timeouts, announce secret and logger. A program only chooses what
// to build:
//
//	cfg (config.Load) → n := node.Open → n.Caller / n.Agent / n.Directory → Run → n.Close
package node

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"time"

	"go.uber.org/zap"

	"github.com/a2abus/a2abus/bus"
	"github.com/a2abus/a2abus/bus/inproc"
	"github.com/a2abus/a2abus/bus/rabbitmq"
	"github.com/a2abus/a2abus/config"
	"github.com/a2abus/a2abus/directory"
	"github.com/a2abus/a2abus/internal/heldlog"
	"github.com/a2abus/a2abus/internal/redact"
	"github.com/a2abus/a2abus/memory"
	"github.com/a2abus/a2abus/memory/inmem"
	"github.com/a2abus/a2abus/memory/redismem"
	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/guard"
	"github.com/a2abus/a2abus/pkg/ops"
)

// ErrNoConfig: Open was given no configuration.
var ErrNoConfig = errors.New("node: no configuration")

// Node is what one process runs on: the bus and working memory of a
// configuration, and the guard, codec and logger every part built on them
// shares. Close closes the bus, then the memory.
type Node struct {
	// Config is the validated configuration the node was opened with.
	Config *config.Config
	// Bus is the configured bus.
	Bus bus.Bus
	// Memory is the configured working memory.
	Memory memory.Memory
	// Guard is the call guard of the policy and limits sections, its limits
	// shared through Redis (limits.shared) when the memory is Redis.
	Guard *guard.Guard
	// Codec encodes and decodes bus messages within bus.max_message_bytes.
	Codec a2a.Codec
	// Log is the logger every part writes to.
	Log *zap.Logger
	// Ops is the node's observability (metrics when ops.listen is set,
	// tracing when the OTEL_* variables ask for it), handed to every part
	// built on the node; nil when neither is on. Replace it before building
	// parts to observe them otherwise (tests: an in-memory tracer). See ops.go.
	Ops *ops.Ops
	// Identities maps broker users to agent names (identity.*): every caller,
	// agent and directory of the node takes a sender's name from it.
	Identities *bus.Identities

	opsServer *ops.Server // StartOps's listener, closed first by Close
}

// Open validates cfg and opens the bus (its connection named connName),
// the working memory and the guard it names. A failure closes what was opened.
// Every part logs to log (nil: nowhere). Give it a logger that does not
// sample, such as NewLogger's: the per-task audit lines (an agent's "task
// completed" and "task failed", a caller's "task finished" and "call
// refused") share a message each, so a sampling logger (zap.NewProduction
// keeps the first 100 entries of one message each second, then 1 in 100)
// drops most of them under load.
func Open(ctx context.Context, cfg *config.Config, connName string, log *zap.Logger) (*Node, error) {
	if err := check(cfg); err != nil {
		return nil, err
	}
	memLog := heldlog.Hold(log) // the memory's lines, written once the bus is open
	busFailed := false
	b, m, err := OpenBoth(ctx,
		func(ctx context.Context) (bus.Bus, error) {
			b, err := Bus(ctx, cfg.Bus, connName, log)
			busFailed = err != nil
			return b, err
		},
		func(ctx context.Context) (memory.Memory, error) { return Memory(ctx, cfg, memLog.Logger) })
	if busFailed {
		memLog.Discard()
	} else {
		memLog.Release()
	}
	if err != nil {
		return nil, err
	}
	s, err := With(cfg, b, m, log)
	if err != nil {
		return nil, errors.Join(err, CloseAll(b, m))
	}
	return s, nil
}

// OpenBoth runs openBus and openMemory at once — their dials and
// handshakes are round trips to two servers, which a one-shot job would
// otherwise wait for one after the other — and returns what they opened.
// When one fails, it waits for the other to finish (each is bounded by its
// own timeouts; cancelling it would leave its client's dial running, and
// logging, after Open returned), closes what the other opened (within
// CloseAll's bound) and returns the failure: the bus's when both failed,
// as when they were opened one after the other. Each error names its
// server ("open bus: …", "open working memory: …"). Open uses it; a
// program that opens its servers its own way (cliutil's OpenNode) may too.
func OpenBoth(ctx context.Context, openBus func(context.Context) (bus.Bus, error),
	openMemory func(context.Context) (memory.Memory, error)) (bus.Bus, memory.Memory, error) {
	var (
		m      memory.Memory
		memErr error
		done   = make(chan struct{})
	)
	go func() {
		defer close(done)
		m, memErr = openMemory(ctx)
	}()
	b, busErr := openBus(ctx)
	<-done
	switch {
	case busErr != nil:
		return nil, nil, errors.Join(busErr, CloseAll(m)) // a nil one is skipped
	case memErr != nil:
		return nil, nil, errors.Join(memErr, CloseAll(b))
	}
	return b, m, nil
}

// OpenBus is Open without the working memory, for what needs only the bus
// (a directory, the topology): the node's Memory is nil, so it builds
// directories and agents without a cancel index, but no caller.
func OpenBus(ctx context.Context, cfg *config.Config, connName string, log *zap.Logger) (*Node, error) {
	if err := check(cfg); err != nil {
		return nil, err
	}
	b, err := Bus(ctx, cfg.Bus, connName, log)
	if err != nil {
		return nil, err
	}
	s, err := With(cfg, b, nil, log)
	if err != nil {
		return nil, errors.Join(err, CloseAll(b))
	}
	return s, nil
}

// With assembles on a bus and memory opened elsewhere (tests, a program
// that shares one connection): it validates cfg and builds the guard; the
// node's Close closes b and m.
func With(cfg *config.Config, b bus.Bus, m memory.Memory, log *zap.Logger) (*Node, error) {
	if err := check(cfg); err != nil {
		return nil, err
	}
	if len(cfg.Redact.Patterns) > 0 { // the process's redactor: every log, notification, tool result and audit record
		red, err := cfg.Redact.Redactor()
		if err != nil {
			return nil, fmt.Errorf("node: %w", err)
		}
		redact.SetDefault(red)
	}
	if log == nil {
		log = zap.NewNop()
	}
	g, err := SharedGuard(cfg, m, log)
	if err != nil {
		return nil, err
	}
	o, err := newOps(cfg, log)
	if err != nil {
		return nil, err
	}
	ids, err := cfg.Identity.Identities()
	if err != nil {
		return nil, fmt.Errorf("node: %w", err)
	}
	o.Watch(b, m, g)
	return &Node{Config: cfg, Bus: b, Memory: m, Guard: g, Codec: a2a.Codec{MaxBodyBytes: cfg.Bus.MaxMessageBytes}, Log: log, Ops: o,
		Identities: ids}, nil
}

func check(cfg *config.Config) error {
	if cfg == nil {
		return ErrNoConfig
	}
	return cfg.Validate()
}

// Close stops the ops listener (StartOps), closes the bus, the guard (its
// shared limits' renewals), then the working memory, then flushes the
// tracer, within a bound. The parts built on the node must be closed first.
func (n *Node) Close() error { return CloseAll(n.opsServer, n.Bus, n.Guard, n.Memory, n.Ops) }

// Bus opens the configured bus: RabbitMQ for bus.url, else a new embedded
// broker (warning that nothing else reaches it when bus.url is empty rather
// than config.EmbeddedURL: see warnUnset).
func Bus(ctx context.Context, cfg config.BusConfig, name string, log *zap.Logger) (bus.Bus, error) {
	if cfg.Embedded() {
		if cfg.URL == "" {
			warnUnset(log, "bus.url", "bus")
		}
		return inproc.New(inproc.Options{Exchange: cfg.Exchange, Logger: log}), nil
	}
	tc, err := cfg.ClientTLS()
	if err != nil {
		return nil, fmt.Errorf("open bus: %w", err)
	}
	warnTLS(log, cfg.TLSWarnings())
	req := watchCertRequest(tc)
	b, err := rabbitmq.Dial(ctx, rabbitmq.Options{
		URL: cfg.URL, Exchange: cfg.Exchange, QueueType: cfg.QueueType, ConnectionName: name,
		PublishTimeout: cfg.PublishTimeout, ReconnectMin: cfg.ReconnectMin, ReconnectMax: cfg.ReconnectMax, Logger: log, TLS: tc,
	})
	if err != nil {
		return nil, fmt.Errorf("open bus: %w", explainTLS(err, cfg.TLSOn(), "bus.tls", cfg.TLS, cfg.URL, req))
	}
	return b, nil
}

// Memory opens the configured working memory: Redis for redis.url or
// redis.addrs, else a new in-process memory (warning as Bus does when
// redis.url is empty); conversations expire after memory.conversation_ttl.
func Memory(ctx context.Context, cfg *config.Config, log *zap.Logger) (memory.Memory, error) {
	r, ttl := cfg.Redis, cfg.Memory.ConversationTTL
	if r.Embedded() {
		if r.URL == "" {
			warnUnset(log, "redis.url", "working memory")
		}
		return inmem.New(inmem.Options{Logger: log, ConversationTTL: ttl}), nil
	}
	tc, err := r.ClientTLS()
	if err != nil {
		return nil, fmt.Errorf("open working memory: %w", err)
	}
	warnTLS(log, r.TLSWarnings())
	req := watchCertRequest(tc)
	m, err := redismem.New(ctx, redismem.Options{
		URL: r.URL, Addrs: r.Addrs, MasterName: r.MasterName, Username: r.Username, Password: r.Password,
		DB: r.DB, KeyPrefix: r.KeyPrefix, Timeout: r.Timeout, ConversationTTL: ttl, Logger: log, TLS: tc,
		WaitReplicas: r.WaitReplicas, WaitTimeout: r.WaitTimeout,
	})
	if err != nil {
		return nil, fmt.Errorf("open working memory: %w", explainTLS(err, r.TLSOn(), "redis.tls", r.TLS, redisWhere(r), req))
	}
	return m, nil
}

// warnUnset says that key was left empty, so the embedded what is used,
// which no other process can reach: an SDK program that forgot its URLs
// must not run alone without knowing it. The warning goes to log, or to
// standard error when log would drop it (nil, a no-op logger, a level above
// warn). config.EmbeddedURL asks for the embedded one without a warning.
func warnUnset(log *zap.Logger, key, what string) {
	msg := fmt.Sprintf("%s is not set: using the embedded in-process %s, which no other process can reach "+
		"(set %s, or %s, to a server's URL; set it to %s to use the embedded one without this warning)",
		key, what, key, config.EnvName(key), config.EmbeddedURL)
	if log != nil && log.Core().Enabled(zap.WarnLevel) {
		log.Warn(msg)
		return
	}
	fmt.Fprintln(os.Stderr, "a2abus: WARNING:", msg)
}

// closeTimeout bounds CloseAll.
const closeTimeout = 10 * time.Second

// CloseAll closes what was opened, in order, within a bound, joining errors;
// nil entries are skipped.
func CloseAll(closers ...interface{ Close() error }) error {
	done := make(chan error, 1)
	go func() {
		var errs []error
		for _, c := range closers {
			if c == nil {
				continue
			}
			errs = append(errs, c.Close())
		}
		done <- errors.Join(errs...)
	}()
	select {
	case err := <-done:
		return err
	case <-time.After(closeTimeout):
		return fmt.Errorf("node: close did not finish within %s", closeTimeout)
	}
}

// WellKnown loads the configured well-known agents. A missing file at the
// default path means none (logged at debug: nobody asked for it); any other problem — an
// explicitly configured file that is missing, or a bad file — is an error.
func WellKnown(cfg *config.Config, log *zap.Logger) ([]directory.WellKnownAgent, error) {
	path := cfg.Directory.WellKnownFile
	if path == "" {
		return nil, nil
	}
	agents, err := directory.LoadWellKnown(path)
	if errors.Is(err, fs.ErrNotExist) && path == config.DefaultWellKnownFile {
		if log != nil {
			log.Debug("no well-known agents file; only announced agents are known", zap.String("file", path))
		}
		return nil, nil
	}
	return agents, err
}
