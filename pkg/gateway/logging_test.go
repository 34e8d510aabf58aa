// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package gateway

import (
	"log/slog"
	"testing"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"
)

// TestA2AGoLogsGoToTheLogger: a2a-go's slog lines reach the gateway's
// logger at debug level, with their attributes (groups as prefixes), not
// the process's standard error.
func TestA2AGoLogsGoToTheLogger(t *testing.T) {
	core, logs := observer.New(zapcore.DebugLevel)
	l := slog.New(zapHandler{log: zap.New(core)}).With("method", "POST").WithGroup("req")
	l.Error("failed to write an event", "err", "broken pipe")
	entries := logs.All()
	if len(entries) != 1 || entries[0].Level != zapcore.DebugLevel || entries[0].Message != "a2asrv: failed to write an event" {
		t.Fatalf("entries %+v", entries)
	}
	ctx := entries[0].ContextMap()
	if ctx["method"] != "POST" || ctx["req.err"] != "broken pipe" {
		t.Errorf("fields %v", ctx)
	}
	quiet, logs := observer.New(zapcore.InfoLevel)
	if slog.New(zapHandler{log: zap.New(quiet)}).Error("x"); logs.Len() != 0 {
		t.Error("a logger above debug got a2a-go's line")
	}
}
