// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package remote

import (
	"context"
	"log/slog"

	"go.uber.org/zap"
)

// zapHandler passes the a2a-go library's log lines (log/slog) to the
// bridge's logger: its errors as warnings (a body not closed, a transport
// that did not connect — the bridge reports what they cost), the rest at debug.
type zapHandler struct {
	log   *zap.Logger
	attrs []zap.Field
}

func newSlog(log *zap.Logger) *slog.Logger { return slog.New(&zapHandler{log: log.Named("a2a-go")}) }

func (h *zapHandler) Enabled(_ context.Context, l slog.Level) bool {
	if l >= slog.LevelError {
		return h.log.Core().Enabled(zap.WarnLevel)
	}
	return h.log.Core().Enabled(zap.DebugLevel)
}

func (h *zapHandler) Handle(_ context.Context, r slog.Record) error {
	fields := append([]zap.Field(nil), h.attrs...)
	r.Attrs(func(a slog.Attr) bool {
		fields = append(fields, zap.Any(a.Key, a.Value.Any()))
		return true
	})
	if r.Level >= slog.LevelError {
		h.log.Warn(r.Message, fields...)
	} else {
		h.log.Debug(r.Message, fields...)
	}
	return nil
}

func (h *zapHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	next := &zapHandler{log: h.log, attrs: append([]zap.Field(nil), h.attrs...)}
	for _, a := range attrs {
		next.attrs = append(next.attrs, zap.Any(a.Key, a.Value.Any()))
	}
	return next
}

func (h *zapHandler) WithGroup(name string) slog.Handler {
	return &zapHandler{log: h.log.Named(name), attrs: h.attrs}
}
