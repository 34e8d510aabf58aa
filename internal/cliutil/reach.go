// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package cliutil

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"

	"github.com/a2abus/a2abus/bus"
	"github.com/a2abus/a2abus/config"
	"github.com/a2abus/a2abus/internal/heldlog"
	"github.com/a2abus/a2abus/internal/redact"
	"github.com/a2abus/a2abus/memory"
	"github.com/a2abus/a2abus/pkg/node"
)

// OpenTimeout bounds the opening of a server (connection and handshake), so
// that an address nobody answers on fails instead of hanging.
const OpenTimeout = 15 * time.Second

// UnreachableError: the bus or the working memory a command needs could not
// be opened. Its message is one line naming the server (password
// redacted), the key, its variable and its flag, and the cause.
type UnreachableError struct {
	// Server is "RabbitMQ" or "Redis".
	Server string
	// Where is the redacted URL (or the Redis addresses).
	Where string
	// Key, Env and Flag set it: bus.url, A2ABUS_BUS_URL, --amqp-url.
	Key, Env, Flag string
	// Origin says whether it was configured or the local default.
	Origin Origin
	// Err is the cause.
	Err error
}

func (e *UnreachableError) Error() string {
	set := e.Key + ", " + e.Env + " or " + e.Flag
	if e.Origin == LocalDefault {
		return fmt.Sprintf("cannot reach %s at %s, the local default (%s unset; --%s for an in-process one): %v",
			e.Server, e.Where, set, EmbeddedFlag, cause(e.Err))
	}
	return fmt.Sprintf("cannot reach %s at %s (%s): %v", e.Server, e.Where, set, cause(e.Err))
}

func (e *UnreachableError) Unwrap() error { return e.Err }

// cause is the most telling part of err: the network error (connection
// refused, no such host, i/o timeout), the broker's refusal, else err.
func cause(err error) error {
	if oe, ok := errors.AsType[*net.OpError](err); ok {
		return oe
	}
	if de, ok := errors.AsType[*net.DNSError](err); ok {
		return de
	}
	if ae, ok := errors.AsType[*amqp.Error](err); ok {
		return ae
	}
	return err
}

// OpenNode is node.Open — the bus, the working memory, the node — with
// every server opened within OpenTimeout, both at once (node.OpenBoth),
// and a server that cannot be reached reported as an *UnreachableError.
// Log lines written while a server is being opened are held back and
// dropped when it cannot be reached: the error says it all, on one line.
func (l *Loaded) OpenNode(ctx context.Context, connName string) (*node.Node, error) {
	var memLog *heldlog.Logger // the memory's lines: written once the bus is open, as if opened after it
	b, m, err := node.OpenBoth(ctx,
		func(ctx context.Context) (bus.Bus, error) { return l.OpenBus(ctx, connName) },
		func(ctx context.Context) (m memory.Memory, err error) {
			m, memLog, err = l.openMemory(ctx)
			return m, err
		})
	switch {
	case memLog == nil: // the memory failed: its lines were dropped
	case err == nil:
		memLog.Release()
	default: // the bus failed: the memory, opened and closed, says nothing
		memLog.Discard()
	}
	if err != nil {
		return nil, err
	}
	n, err := node.With(l.Config, b, m, l.Log)
	if err != nil {
		return nil, errors.Join(err, node.CloseAll(b, m))
	}
	return n, nil
}

// OpenBusNode is node.OpenBus (a node without working memory: a directory,
// the topology) as OpenNode opens it.
func (l *Loaded) OpenBusNode(ctx context.Context, connName string) (*node.Node, error) {
	b, err := l.OpenBus(ctx, connName)
	if err != nil {
		return nil, err
	}
	n, err := node.With(l.Config, b, nil, l.Log)
	if err != nil {
		return nil, errors.Join(err, node.CloseAll(b))
	}
	return n, nil
}

// OpenBus opens the configured bus (node.Bus) as OpenNode does.
func (l *Loaded) OpenBus(ctx context.Context, connName string) (bus.Bus, error) {
	cfg := l.Config.Bus
	log := heldlog.Hold(l.Log)
	octx, cancel := context.WithTimeout(ctx, OpenTimeout)
	defer cancel()
	b, err := node.Bus(octx, cfg, connName, log.Logger)
	if err != nil {
		log.Discard()
		if ctx.Err() != nil {
			return nil, err // stopped, not unreachable
		}
		return nil, &UnreachableError{Server: "RabbitMQ", Where: redact.URL(cfg.URL), Key: "bus.url", Env: config.EnvName("bus.url"),
			Flag: "--amqp-url", Origin: l.Origins.Bus, Err: err}
	}
	log.Release()
	return b, nil
}

// OpenMemory opens the configured working memory (node.Memory) as OpenNode does.
func (l *Loaded) OpenMemory(ctx context.Context) (memory.Memory, error) {
	m, log, err := l.openMemory(ctx)
	if err == nil {
		log.Release()
	}
	return m, err
}

// openMemory is OpenMemory with the memory's log lines still held when it
// opened (the caller releases or discards them); dropped when it failed.
func (l *Loaded) openMemory(ctx context.Context) (memory.Memory, *heldlog.Logger, error) {
	r := l.Config.Redis
	log := heldlog.Hold(l.Log)
	octx, cancel := context.WithTimeout(ctx, OpenTimeout)
	defer cancel()
	m, err := node.Memory(octx, l.Config, log.Logger)
	if err != nil {
		log.Discard()
		if ctx.Err() != nil || errors.Is(err, config.ErrInvalid) {
			return nil, nil, err
		}
		ue := &UnreachableError{Server: "Redis", Where: redact.URL(r.URL), Key: "redis.url", Env: config.EnvName("redis.url"),
			Flag: "--redis-url", Origin: l.Origins.Memory, Err: err}
		if r.URL == "" {
			ue.Where, ue.Key, ue.Env, ue.Flag = strings.Join(r.Addrs, ","), "redis.addrs", config.EnvName("redis.addrs"), "the file"
		}
		return nil, nil, ue
	}
	return m, log, nil
}

// Explain turns an error of opening the configured servers somewhere else
// (node.Open inside agents.Serve) into an *UnreachableError when its cause
// says which server it was: a broker's refusal, or a network error whose
// port is that of one server only. Any other error is returned as it is.
func (l *Loaded) Explain(err error) error {
	if err == nil {
		return nil
	}
	if _, done := errors.AsType[*UnreachableError](err); done {
		return err
	}
	busPort, redisPort := port(l.Config.Bus.URL, "5672"), port(l.Config.Redis.URL, "6379")
	server := ""
	if _, ok := errors.AsType[*amqp.Error](err); ok {
		server = "bus"
	} else if oe, ok := errors.AsType[*net.OpError](err); ok && oe.Addr != nil && busPort != redisPort {
		_, p, _ := net.SplitHostPort(oe.Addr.String())
		switch p {
		case busPort:
			server = "bus"
		case redisPort:
			server = "memory"
		}
	}
	r := l.Config.Redis
	switch {
	case server == "bus" && !l.Config.Bus.Embedded():
		return &UnreachableError{Server: "RabbitMQ", Where: redact.URL(l.Config.Bus.URL), Key: "bus.url", Env: config.EnvName("bus.url"),
			Flag: "--amqp-url", Origin: l.Origins.Bus, Err: err}
	case server == "memory" && r.URL != "" && !r.Embedded():
		return &UnreachableError{Server: "Redis", Where: redact.URL(r.URL), Key: "redis.url", Env: config.EnvName("redis.url"),
			Flag: "--redis-url", Origin: l.Origins.Memory, Err: err}
	}
	return err
}

// port is the port of raw, def when it names none ("" when raw is no URL).
func port(raw, def string) string {
	u, err := url.Parse(raw)
	if err != nil || raw == "" {
		return ""
	}
	if p := u.Port(); p != "" {
		return p
	}
	if u.Scheme == "amqps" {
		return "5671"
	}
	return def
}
