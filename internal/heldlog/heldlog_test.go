// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package heldlog

import (
	"bytes"
	"strings"
	"testing"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
)

// TestHeldLogsAreWrittenOnReleaseAndDroppedOnDiscard.
func TestHeldLogsAreWrittenOnReleaseAndDroppedOnDiscard(t *testing.T) {
	var out bytes.Buffer
	base := zap.New(zapcore.NewCore(zapcore.NewConsoleEncoder(zap.NewDevelopmentEncoderConfig()), zapcore.AddSync(&out), zap.InfoLevel))
	h := Hold(base)
	h.With(zap.String("part", "redis")).Warn("first")
	h.Debug("below the level")
	if out.Len() != 0 {
		t.Fatalf("written while held: %q", out.String())
	}
	h.Release()
	h.Info("after")
	if s := out.String(); !strings.Contains(s, "first") || !strings.Contains(s, `"part": "redis"`) || !strings.Contains(s, "after") ||
		strings.Index(s, "first") > strings.Index(s, "after") || strings.Contains(s, "below") {
		t.Fatalf("after release: %q", s)
	}
	out.Reset()
	d := Hold(base)
	d.Warn("dropped")
	d.Discard()
	d.Warn("kept")
	if s := out.String(); strings.Contains(s, "dropped") || !strings.Contains(s, "kept") {
		t.Fatalf("after discard: %q", s)
	}
}

// TestHoldNilHoldsNothing: a nil logger stays nil, and releasing or
// discarding it does nothing.
func TestHoldNilHoldsNothing(t *testing.T) {
	h := Hold(nil)
	if h.Logger != nil {
		t.Fatal("Hold(nil).Logger != nil")
	}
	h.Release()
	h.Discard()
}
