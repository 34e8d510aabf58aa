// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package config

import (
	"errors"
	"testing"

	"github.com/spf13/pflag"
)

// LoadSourced says for every key whether its value is the default or came
// from the file, the environment or a flag, the later source winning.
func TestLoadSourcedNamesEachSource(t *testing.T) {
	dir := isolate(t)
	p := writeFile(t, dir, "src.yaml", "log:\n  level: error\n  format: json\nbus:\n  exchange: from-file\n")
	t.Setenv(EnvName("bus.exchange"), "from-env")
	fs := pflag.NewFlagSet("x", pflag.ContinueOnError)
	AddFlags(fs)
	if err := fs.Parse([]string{"--log-level", "debug"}); err != nil {
		t.Fatal(err)
	}
	cfg, src, err := LoadSourced(LoadOptions{File: p, Flags: fs})
	if err != nil {
		t.Fatal(err)
	}
	for key, want := range map[string]Source{"log.level": SourceFlag, "log.format": SourceFile, "bus.exchange": SourceEnv, "bus.url": SourceDefault} {
		if src[key] != want {
			t.Errorf("source of %s = %q, want %q", key, src[key], want)
		}
	}
	if len(src) != len(Keys()) {
		t.Errorf("%d sources for %d keys", len(src), len(Keys()))
	}
	if cfg.Bus.Exchange != "from-env" || cfg.Log.Level != "debug" {
		t.Errorf("exchange %q, level %q", cfg.Bus.Exchange, cfg.Log.Level)
	}
}

// An unknown key in the file does not hide the other errors: every bad
// key is reported together, each a *FieldError naming it.
func TestUnknownKeyHidesNoOtherError(t *testing.T) {
	dir := isolate(t)
	p := writeFile(t, dir, "bad.yaml", "bus:\n  exchnage: typo\n  max_attempts: -3\nlog:\n  level: loud\n")
	_, _, err := LoadSourced(LoadOptions{File: p})
	if err == nil {
		t.Fatal("a file with three bad keys loaded")
	}
	want := map[string]bool{"bus.exchnage": false, "bus.max_attempts": false, "log.level": false}
	for _, e := range err.(interface{ Unwrap() []error }).Unwrap() {
		fe, ok := errors.AsType[*FieldError](e)
		if !ok {
			t.Errorf("not a *FieldError: %v", e)
			continue
		}
		if _, expected := want[fe.Key]; !expected {
			t.Errorf("unexpected error %v", fe)
		}
		want[fe.Key] = true
	}
	for key, seen := range want {
		if !seen {
			t.Errorf("no error names %s: %v", key, err)
		}
	}
}
