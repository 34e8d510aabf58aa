// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package node

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"go.uber.org/zap"

	"github.com/a2abus/a2abus/config"
)

func TestLoggerJSON(t *testing.T) {
	var buf bytes.Buffer
	log, err := NewLogger(config.LogConfig{Level: "info", Format: "json"}, &buf)
	if err != nil {
		t.Fatal(err)
	}
	log.Debug("hidden")
	log.Info("started", zap.String("agent", "SampleAgent"))
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 1 {
		t.Fatalf("got %d lines, want only the info one:\n%s", len(lines), buf.String())
	}
	var entry map[string]any
	if err := json.Unmarshal([]byte(lines[0]), &entry); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, lines[0])
	}
	if entry["level"] != "info" || entry["msg"] != "started" || entry["agent"] != "SampleAgent" {
		t.Errorf("entry = %v", entry)
	}
	if ts, _ := entry["ts"].(string); !strings.Contains(ts, "T") {
		t.Errorf("ts = %v, want an ISO-8601 time", entry["ts"])
	}
}

func TestLoggerConsoleLevels(t *testing.T) {
	tests := []struct {
		level     string
		wantDebug bool
		wantWarn  bool
	}{
		{"debug", true, true},
		{"info", false, true},
		{"warn", false, true},
		{"error", false, false},
	}
	for _, tt := range tests {
		t.Run(tt.level, func(t *testing.T) {
			var buf bytes.Buffer
			log, err := NewLogger(config.LogConfig{Level: tt.level, Format: "console"}, &buf)
			if err != nil {
				t.Fatal(err)
			}
			log.Debug("d-msg")
			log.Warn("w-msg")
			log.Error("e-msg")
			out := buf.String()
			if strings.Contains(out, "d-msg") != tt.wantDebug || strings.Contains(out, "w-msg") != tt.wantWarn {
				t.Errorf("level %s wrote:\n%s", tt.level, out)
			}
			if !strings.Contains(out, "ERROR\t") || !strings.Contains(out, "e-msg") {
				t.Errorf("console output lacks the error entry:\n%s", out)
			}
			if strings.HasPrefix(strings.TrimSpace(out), "{") {
				t.Errorf("console output is JSON:\n%s", out)
			}
		})
	}
}

func TestLoggerInvalid(t *testing.T) {
	for _, cfg := range []config.LogConfig{
		{Level: "trace", Format: "json"},
		{Level: "panic", Format: "json"},
		{Level: "info", Format: "logfmt"},
		{},
	} {
		if _, err := NewLogger(cfg, nil); !errors.Is(err, ErrInvalidLog) {
			t.Errorf("NewLogger(%+v) error = %v, want ErrInvalidLog", cfg, err)
		}
	}
}
