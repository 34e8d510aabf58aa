// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package cliutil

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/a2abus/a2abus/config"
	"github.com/a2abus/a2abus/pkg/node"
)

// closed returns a Loaded whose servers listen nowhere (ports 1 and 2),
// logging at warn to logs.
func closed(t *testing.T, origins Origins, logs *bytes.Buffer) *Loaded {
	t.Helper()
	cfg := config.Default()
	cfg.Bus.URL = "amqp://guest:s3cret@127.0.0.1:1/"
	cfg.Redis.URL = "redis://:s3cret@127.0.0.1:2/0"
	log, err := node.NewLogger(config.LogConfig{Level: "warn", Format: "console"}, logs)
	if err != nil {
		t.Fatal(err)
	}
	return &Loaded{Config: cfg, Log: log, Origins: origins}
}

// TestUnreachableServersAreOneLineErrors: the error names the server with
// its password hidden, the key, its variable and its flag, says when the
// URL is the local default, and nothing else is logged.
func TestUnreachableServersAreOneLineErrors(t *testing.T) {
	ctx := context.Background()
	var logs bytes.Buffer
	l := closed(t, Origins{}, &logs)
	_, err := l.OpenNode(ctx, "test")
	want := "cannot reach RabbitMQ at amqp://guest:xxxxx@127.0.0.1:1/ (bus.url, A2ABUS_BUS_URL or --amqp-url): dial tcp 127.0.0.1:1: connect: connection refused"
	if err == nil || err.Error() != want {
		t.Fatalf("bus: %v\nwant %s", err, want)
	}
	if _, ok := errors.AsType[*UnreachableError](err); !ok || ErrorCode(err) != CodeUnreachable {
		t.Fatalf("%T is no *UnreachableError", err)
	}
	_, err = l.OpenMemory(ctx)
	want = "cannot reach Redis at redis://:xxxxx@127.0.0.1:2/0 (redis.url, A2ABUS_REDIS_URL or --redis-url): "
	if err == nil || !strings.HasPrefix(err.Error(), want) || strings.Contains(err.Error(), "\n") || strings.Contains(err.Error(), "s3cret") {
		t.Fatalf("memory: %v\nwant it to start with %s", err, want)
	}
	if logs.Len() != 0 {
		t.Errorf("an unreachable server logged more than its error (go-redis's own lines must be dropped):\n%s", logs.String())
	}
	l = closed(t, Origins{Bus: LocalDefault, Memory: LocalDefault}, &logs)
	_, err = l.OpenBus(ctx, "test")
	want = "cannot reach RabbitMQ at amqp://guest:xxxxx@127.0.0.1:1/, the local default (bus.url, A2ABUS_BUS_URL or --amqp-url unset; --embedded for an in-process one): "
	if err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Fatalf("local default: %v\nwant it to start with %s", err, want)
	}
}

// TestExplainNamesTheServerOfAnErrorFromElsewhere: an error of node.Open
// run by another package becomes an *UnreachableError when its port says
// which server failed; other errors stay as they are.
func TestExplainNamesTheServerOfAnErrorFromElsewhere(t *testing.T) {
	var logs bytes.Buffer
	l := closed(t, Origins{}, &logs)
	_, err := l.OpenBus(context.Background(), "test")
	var ue *UnreachableError
	if !errors.As(err, &ue) {
		t.Fatal(err)
	}
	raw := ue.Err // what node.Open returned
	if got := l.Explain(raw); got.Error() != err.Error() {
		t.Errorf("Explain = %v, want %v", got, err)
	}
	other := errors.New("agents: serve X: a2a: invalid name")
	if got := l.Explain(other); got != other {
		t.Errorf("Explain changed an unrelated error: %v", got)
	}
	if l.Explain(nil) != nil {
		t.Error("Explain(nil) != nil")
	}
}
