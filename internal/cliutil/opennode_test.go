// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package cliutil

import (
	"bytes"
	"context"
	"errors"
	"testing"

	"github.com/a2abus/a2abus/config"
	"github.com/a2abus/a2abus/internal/testenv"
	"github.com/a2abus/a2abus/pkg/node"
)

// TestOpenNodeLogsNothingOfTheMemoryWhenTheBusFails: OpenNode opens the
// bus and the working memory at once, but logs as when it opened the
// memory after the bus: with the bus unreachable and Redis up, the error is
// the bus's and the memory's lines (its "connected", at info) are not
// written.
func TestOpenNodeLogsNothingOfTheMemoryWhenTheBusFails(t *testing.T) {
	redisURL := testenv.RedisURL(t)
	var logs bytes.Buffer
	log, err := node.NewLogger(config.LogConfig{Level: "debug", Format: "console"}, &logs)
	if err != nil {
		t.Fatal(err)
	}
	cfg := config.Default()
	cfg.Bus.URL, cfg.Redis.URL = "amqp://guest:guest@127.0.0.1:1/", redisURL // nothing listens on port 1
	l := &Loaded{Config: cfg, Log: log}
	_, err = l.OpenNode(context.Background(), "test")
	if ue, ok := errors.AsType[*UnreachableError](err); !ok || ue.Server != "RabbitMQ" {
		t.Fatalf("OpenNode = %v, want RabbitMQ unreachable", err)
	}
	if logs.Len() != 0 {
		t.Errorf("logged with the bus unreachable:\n%s", logs.String())
	}
}
