// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package node

import (
	"context"
	"errors"
	"io"
	"os"
	"strings"
	"testing"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/a2abus/a2abus/config"
	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/caller"
)

func TestOpenRefusesAMissingOrBadConfiguration(t *testing.T) {
	ctx := t.Context()
	if _, err := Open(ctx, nil, "x", nil); !errors.Is(err, ErrNoConfig) {
		t.Errorf("Open(nil) = %v, want ErrNoConfig", err)
	}
	bad := config.Default()
	bad.Agent.Concurrency = -1
	if _, err := Open(ctx, bad, "x", nil); !errors.Is(err, config.ErrInvalid) {
		t.Errorf("Open(bad) = %v, want config.ErrInvalid", err)
	}
	if _, err := OpenBus(ctx, bad, "x", nil); !errors.Is(err, config.ErrInvalid) {
		t.Errorf("OpenBus(bad) = %v, want config.ErrInvalid", err)
	}
}

// The embedded defaults assemble every part; a stack without memory builds
// directories and agents but refuses a caller with a typed error.
func TestNodeBuildsEveryPart(t *testing.T) {
	ctx := context.Background()
	s, err := Open(ctx, config.Default(), "test", nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Caller("Primary", nil); err != nil {
		t.Errorf("caller: %v", err)
	}
	if _, err := s.Agent(a2a.AgentCard{Name: "Echo", Version: "1"}); err != nil {
		t.Errorf("agent: %v", err)
	}
	for _, role := range []DirectoryRole{Lister, Keeper, Vetter} {
		if _, err := s.Directory(role); err != nil {
			t.Errorf("directory %d: %v", role, err)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	busOnly, err := OpenBus(ctx, config.Default(), "test", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = busOnly.Close() }()
	if busOnly.Memory != nil {
		t.Fatal("OpenBus opened a memory")
	}
	if _, err := busOnly.Caller("Primary", nil); !errors.Is(err, caller.ErrInvalidOptions) {
		t.Errorf("a caller without memory: %v, want caller.ErrInvalidOptions", err)
	}
	d, stop, err := busOnly.StartDirectory(ctx, Lister)
	if err != nil {
		t.Fatal(err)
	}
	stop()
	if d == nil {
		t.Fatal("no directory")
	}
}

// An SDK program that leaves bus.url and redis.url empty runs on the
// embedded bus and memory, and is told so where it cannot miss it: at WARN
// on its logger, or on standard error when its logger would drop the line;
// config.EmbeddedURL asks for them without a warning.
func TestAnUnsetURLWarnsThatNothingElseReachesIt(t *testing.T) {
	core, logs := observer.New(zap.WarnLevel)
	n, err := Open(t.Context(), config.Default(), "test", zap.New(core))
	if err != nil {
		t.Fatal(err)
	}
	_ = n.Close()
	for _, key := range []string{"bus.url", "redis.url"} {
		if logs.FilterMessageSnippet(key+" is not set: using the embedded").Len() != 1 {
			t.Errorf("no warning about an unset %s: %v", key, logs.All())
		}
	}

	explicit := config.Default()
	explicit.Bus.URL, explicit.Redis.URL = config.EmbeddedURL, config.EmbeddedURL
	core, logs = observer.New(zap.WarnLevel)
	n, err = Open(t.Context(), explicit, "test", zap.New(core))
	if err != nil {
		t.Fatal(err)
	}
	_ = n.Close()
	if !n.Config.Bus.Embedded() || !n.Config.Redis.Embedded() || logs.Len() != 0 {
		t.Errorf("embedded:// warned (or was not embedded): %v", logs.All())
	}

	stderr := captureStderr(t, func() {
		n, err := Open(t.Context(), config.Default(), "test", nil) // a logger that drops everything
		if err != nil {
			t.Fatal(err)
		}
		_ = n.Close()
	})
	if !strings.Contains(stderr, "a2abus: WARNING: bus.url is not set") || !strings.Contains(stderr, "A2ABUS_REDIS_URL") {
		t.Errorf("without a logger the warning is not on standard error: %q", stderr)
	}
}

// captureStderr runs f with os.Stderr going to a pipe, and returns what f wrote.
func captureStderr(t *testing.T, f func()) string {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	saved := os.Stderr
	os.Stderr = w
	defer func() { os.Stderr = saved }()
	out := make(chan string)
	go func() {
		b, _ := io.ReadAll(r)
		out <- string(b)
	}()
	f()
	_ = w.Close()
	return <-out
}
