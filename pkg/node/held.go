// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package node

import (
	"sync"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
)

// maxHeld bounds the log entries a heldLog keeps back.
const maxHeld = 64

// heldLog is a logger whose entries are kept back until release writes
// them or discard drops them; after either it writes through. Open gives
// it to the working memory it opens beside the bus, so that the log reads
// as when the memory was opened after the bus: nothing of the memory's
// (go-redis's own dial failures among them) when the bus failed first.
type heldLog struct {
	*zap.Logger // nil when the logger held is nil
	mu          sync.Mutex
	holding     bool
	entries     []heldEntry
}

type heldEntry struct {
	core   zapcore.Core
	ent    zapcore.Entry
	fields []zapcore.Field
}

// holdLog returns log with its entries held back (nil stays nil).
func holdLog(log *zap.Logger) *heldLog {
	h := &heldLog{holding: true}
	if log != nil {
		h.Logger = log.WithOptions(zap.WrapCore(func(c zapcore.Core) zapcore.Core { return &heldCore{Core: c, held: h} }))
	}
	return h
}

// release writes the held entries, in order, and stops holding.
func (h *heldLog) release() {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, e := range h.entries {
		_ = e.core.Write(e.ent, e.fields)
	}
	h.entries, h.holding = nil, false
}

// discard drops the held entries and stops holding.
func (h *heldLog) discard() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.entries, h.holding = nil, false
}

// heldCore is a zapcore.Core that holds its entries while its heldLog does.
type heldCore struct {
	zapcore.Core
	held *heldLog
}

func (c *heldCore) With(fields []zapcore.Field) zapcore.Core {
	return &heldCore{Core: c.Core.With(fields), held: c.held}
}

func (c *heldCore) Check(ent zapcore.Entry, ce *zapcore.CheckedEntry) *zapcore.CheckedEntry {
	if c.Enabled(ent.Level) {
		return ce.AddCore(ent, c)
	}
	return ce
}

func (c *heldCore) Write(ent zapcore.Entry, fields []zapcore.Field) error {
	c.held.mu.Lock()
	if c.held.holding {
		if len(c.held.entries) < maxHeld {
			c.held.entries = append(c.held.entries, heldEntry{core: c.Core, ent: ent, fields: fields})
		}
		c.held.mu.Unlock()
		return nil
	}
	c.held.mu.Unlock()
	return c.Core.Write(ent, fields)
}
