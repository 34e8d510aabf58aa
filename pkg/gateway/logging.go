// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package gateway

import (
	"context"
	"log/slog"
	"slices"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
)

// zapHandler hands a2a-go's log lines (log/slog, through the request's
// context) to the gateway's logger at debug level: they are its
// transports' (a client that went away in the middle of a stream), which
// the gateway's own lines and metrics already account for.
type zapHandler struct {
	log    *zap.Logger
	fields []zap.Field
	group  string
}

func (h zapHandler) Enabled(context.Context, slog.Level) bool {
	return h.log.Core().Enabled(zapcore.DebugLevel)
}

func (h zapHandler) Handle(_ context.Context, r slog.Record) error {
	fields := slices.Clone(h.fields)
	r.Attrs(func(a slog.Attr) bool {
		fields = append(fields, zap.Any(h.group+a.Key, a.Value.Resolve().Any()))
		return true
	})
	h.log.Debug("a2asrv: "+r.Message, fields...)
	return nil
}

func (h zapHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	h.fields = slices.Clone(h.fields)
	for _, a := range attrs {
		h.fields = append(h.fields, zap.Any(h.group+a.Key, a.Value.Resolve().Any()))
	}
	return h
}

func (h zapHandler) WithGroup(name string) slog.Handler {
	if name != "" {
		h.group += name + "."
	}
	return h
}
