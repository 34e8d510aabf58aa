// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package cliutil

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/a2abus/a2abus/config"
	"github.com/a2abus/a2abus/internal/testenv"
)

func isolate(t *testing.T) { testenv.IsolateConfig(t, "") }

func TestExecutePrintsEachJoinedErrorWithTheCommandName(t *testing.T) {
	root := &cobra.Command{Use: "tool", RunE: func(*cobra.Command, []string) error {
		return errors.Join(errors.New("first"), errors.New("second"))
	}}
	var stderr bytes.Buffer
	if code := Execute(root, nil, &stderr); code != 1 || stderr.String() != "tool: first\ntool: second\n" {
		t.Fatalf("exit %d, stderr %q", code, stderr.String())
	}
	ok := &cobra.Command{Use: "tool", RunE: func(cmd *cobra.Command, _ []string) error {
		if cmd.Context() == nil || cmd.Context().Err() != nil {
			return errors.New("no live context")
		}
		return nil
	}}
	stderr.Reset()
	if code := Execute(ok, nil, &stderr); code != 0 || stderr.Len() != 0 {
		t.Fatalf("exit %d, stderr %q", code, stderr.String())
	}
	failed := &cobra.Command{Use: "tool", RunE: func(*cobra.Command, []string) error {
		return fmt.Errorf("wait: %w", &ExitError{Code: 2, Err: errors.New("TIMEOUT: no answer")})
	}}
	stderr.Reset()
	if code := Execute(failed, nil, &stderr); code != 2 || stderr.String() != "tool: TIMEOUT: no answer\n" {
		t.Fatalf("an ExitError: exit %d, stderr %q; want 2 and its error alone", code, stderr.String())
	}
}

func TestLoadConfigAppliesFileEnvAndFlags(t *testing.T) {
	isolate(t)
	file := filepath.Join(t.TempDir(), "a2abus.yaml")
	if err := os.WriteFile(file, []byte("log:\n  level: warn\nagent:\n  concurrency: 7\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("A2ABUS_AGENT_MAX_TASKS", "3")
	var configFile string
	var got *config.Config
	cmd := &cobra.Command{Use: "tool", RunE: func(cmd *cobra.Command, _ []string) error {
		l, err := LoadConfig(cmd, configFile)
		if err != nil {
			return err
		}
		if l.File != file {
			return fmt.Errorf("Loaded.File = %q, want %q", l.File, file)
		}
		l.Log.Warn("visible")
		l.Log.Info("hidden")
		got = l.Config
		return nil
	}}
	AddConfigFlags(cmd.PersistentFlags(), &configFile)
	var stderr bytes.Buffer
	if code := Execute(cmd, []string{"--config", file, "--log-format", "console"}, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	if got.Agent.Concurrency != 7 || got.Agent.MaxTasks != 3 || got.Log.Format != "console" || got.Log.Level != "warn" {
		t.Errorf("config %+v %+v", got.Agent, got.Log)
	}
	if logs := stderr.String(); !strings.Contains(logs, "visible") || strings.Contains(logs, "hidden") {
		t.Errorf("the logger does not follow the configuration:\n%s", logs)
	}

	stderr.Reset()
	if code := Execute(cmd, []string{"--config", filepath.Join(t.TempDir(), "none.yaml")}, &stderr); code != 1 || !strings.HasPrefix(stderr.String(), "tool: config: read file") {
		t.Fatalf("missing file: exit %d, stderr %q", code, stderr.String())
	}
}

func TestTuneGCKeepsAnExplicitGOGC(t *testing.T) {
	prev := debug.SetGCPercent(100)
	defer debug.SetGCPercent(prev)
	t.Setenv("GOGC", "150")
	TuneGC()
	if got := debug.SetGCPercent(100); got != 100 {
		t.Fatalf("GC percent = %d with GOGC set, want it left alone (100)", got)
	}
	os.Unsetenv("GOGC")
	TuneGC()
	if got := debug.SetGCPercent(100); got != DefaultGCPercent {
		t.Fatalf("GC percent = %d without GOGC, want %d", got, DefaultGCPercent)
	}
	TuneGCTo(OneShotGCPercent + 7)
	if got := debug.SetGCPercent(100); got != OneShotGCPercent+7 {
		t.Fatalf("GC percent = %d after TuneGCTo(%d) without GOGC", got, OneShotGCPercent+7)
	}
	t.Setenv("GOGC", "150")
	TuneGCTo(OneShotGCPercent + 7)
	if got := debug.SetGCPercent(100); got != 100 {
		t.Fatalf("GC percent = %d after TuneGCTo with GOGC set, want it left alone (100)", got)
	}
}
