// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

// Package heldlog holds a logger's entries back until they are released
// or discarded: what is opened beside something else (the working memory
// beside the bus) then logs as if it had been opened after it, and says
// nothing when the other failed first.
package heldlog

import (
	"sync"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
)

// MaxHeld bounds the entries a Logger keeps back; later ones are dropped.
const MaxHeld = 64

// Logger is a *zap.Logger whose entries are kept back until Release writes
// them or Discard drops them; after either it writes through. What was
// opened with it keeps it: it costs one lock per entry.
type Logger struct {
	*zap.Logger // nil when the logger held is nil
	mu          sync.Mutex
	holding     bool
	entries     []entry
}

type entry struct {
	core   zapcore.Core
	ent    zapcore.Entry
	fields []zapcore.Field
}

// Hold returns log with its entries held back (a nil log holds nothing).
func Hold(log *zap.Logger) *Logger {
	h := &Logger{holding: true}
	if log != nil {
		h.Logger = log.WithOptions(zap.WrapCore(func(c zapcore.Core) zapcore.Core { return &core{Core: c, held: h} }))
	}
	return h
}

// Release writes the held entries, in order, and stops holding.
func (h *Logger) Release() {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, e := range h.entries {
		_ = e.core.Write(e.ent, e.fields)
	}
	h.entries, h.holding = nil, false
}

// Discard drops the held entries and stops holding.
func (h *Logger) Discard() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.entries, h.holding = nil, false
}

// core is a zapcore.Core that holds its entries while its Logger does.
type core struct {
	zapcore.Core
	held *Logger
}

func (c *core) With(fields []zapcore.Field) zapcore.Core {
	return &core{Core: c.Core.With(fields), held: c.held}
}

func (c *core) Check(ent zapcore.Entry, ce *zapcore.CheckedEntry) *zapcore.CheckedEntry {
	if c.Enabled(ent.Level) {
		return ce.AddCore(ent, c)
	}
	return ce
}

func (c *core) Write(ent zapcore.Entry, fields []zapcore.Field) error {
	c.held.mu.Lock()
	if c.held.holding {
		if len(c.held.entries) < MaxHeld {
			c.held.entries = append(c.held.entries, entry{core: c.Core, ent: ent, fields: fields})
		}
		c.held.mu.Unlock()
		return nil
	}
	c.held.mu.Unlock()
	return c.Core.Write(ent, fields)
}
