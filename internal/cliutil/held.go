// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package cliutil

import (
	"sync"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
)

// maxHeld bounds the log entries held back while a server is being opened.
const maxHeld = 64

// heldLogger writes through a core that holds its entries back until
// release writes them or discard drops them; after either it writes
// through. What is opened with it keeps it: it costs one lock per entry.
type heldLogger struct {
	*zap.Logger
	state *heldState
}

type heldState struct {
	mu      sync.Mutex
	holding bool
	entries []heldEntry
}

type heldEntry struct {
	core   zapcore.Core
	ent    zapcore.Entry
	fields []zapcore.Field
}

// holdLogs returns log with its entries held back.
func holdLogs(log *zap.Logger) *heldLogger {
	st := &heldState{holding: true}
	return &heldLogger{
		Logger: log.WithOptions(zap.WrapCore(func(c zapcore.Core) zapcore.Core { return &heldCore{Core: c, state: st} })),
		state:  st,
	}
}

// release writes the held entries, in order, and stops holding.
func (h *heldLogger) release() {
	h.state.mu.Lock()
	defer h.state.mu.Unlock()
	for _, e := range h.state.entries {
		_ = e.core.Write(e.ent, e.fields)
	}
	h.state.entries, h.state.holding = nil, false
}

// discard drops the held entries and stops holding.
func (h *heldLogger) discard() {
	h.state.mu.Lock()
	defer h.state.mu.Unlock()
	h.state.entries, h.state.holding = nil, false
}

// heldCore is a zapcore.Core that holds its entries while its state does.
type heldCore struct {
	zapcore.Core
	state *heldState
}

func (c *heldCore) With(fields []zapcore.Field) zapcore.Core {
	return &heldCore{Core: c.Core.With(fields), state: c.state}
}

func (c *heldCore) Check(ent zapcore.Entry, ce *zapcore.CheckedEntry) *zapcore.CheckedEntry {
	if c.Enabled(ent.Level) {
		return ce.AddCore(ent, c)
	}
	return ce
}

func (c *heldCore) Write(ent zapcore.Entry, fields []zapcore.Field) error {
	c.state.mu.Lock()
	if c.state.holding {
		if len(c.state.entries) < maxHeld {
			c.state.entries = append(c.state.entries, heldEntry{core: c.Core, ent: ent, fields: fields})
		}
		c.state.mu.Unlock()
		return nil
	}
	c.state.mu.Unlock()
	return c.Core.Write(ent, fields)
}
