// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package config

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/a2abus/a2abus/internal/testenv"

	"go.yaml.in/yaml/v3"
)

// FuzzLoad feeds arbitrary bytes to Load as a YAML file (or, with asJSON,
// a JSON one). A bad file is refused, never a panic, and every error of
// the refusal wraps ErrInvalid: a configuration error, never another kind.
// An accepted configuration passes Validate, and what `a2abus config
// check` prints of it — the YAML of the configuration, in full and
// redacted — loads back: the full one to an equal configuration (the
// redacted one unless it has an announce secret: see the body).
func FuzzLoad(f *testing.F) {
	example, err := os.ReadFile("../a2abus.example.yaml")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(example, false)
	f.Add(encodeYAML(f, Default()), false)
	for _, s := range []string{
		"bus:\n  url: amqp://guest:guest@127.0.0.1:5672/\n  max_attempts: 3\n  publish_timeout: 1m30s\nredis:\n  addrs: [n1:7000, n2:7000]\n  password: 12345\nmemory:\n  result_ttl: 15m\n",
		"policy:\n  default: deny\n  rules:\n    - caller: Cli\n      allow: [\"*\"]\n      deny: [Admin*]\n    - caller: \"Research*\"\n      may_call: false\n    - caller: Ops\n      allow: SampleAgent, Other\nlimits:\n  rate: 5\n  burst: 1\n  breaker_cooldown: 1m\n",
		"bus:\n  ulr: amqp://x\n  exchange: a2a\nextra: 1\n",
		"bus: amqp://x\n",
		"redis:\n  timeout: 2\n",
		"redis:\n  password: [a, b]\n",
		"policy:\n  rules:\n    - caller: Cli\n      alow: [x]\n      may_call: maybe\n    - nope\n",
		"policy:\n  rules:\n    caller: Cli\n",
		"policy:\n  rules:\n    - caller: Cli\n      deny: [a.b]\n",
		"bus:\n  url: [\n",
		"redis:\n  url: redis://:secret@localhost:6379/3\ndirectory:\n  announce_secret: 0123456789abcdef0123\n",
		"llm:\n  base_url: http://proxy:pw@127.0.0.1:11434/v1\n  api_key: sk-local\n  model: llama3.1\n  temperature: 0.7\n  timeout: 90s\nchat:\n  max_tool_rounds: 3\n  token_budget: 5000\n",
		"llm:\n  base_url: 127.0.0.1:11434\n  temperature: .nan\n  max_retries: 11\nchat:\n  max_history_chars: 10\n",
	} {
		f.Add([]byte(s), false)
	}
	f.Add([]byte(`{"bus": {"exchange": "j"}, "log": {"format": "console"}}`), true)
	f.Add([]byte(`{"policy": {"rules": [{"caller": "Primary", "allow": ["Sample*"], "deny": ["SampleAdmin"]}]}}`), true)
	for _, k := range Keys() { // only the file speaks
		f.Setenv(EnvName(k), "")
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte, asJSON bool) {
		name := FileName
		if asJSON {
			name = "a2abus.json"
		}
		cfg, err := loadBytes(t, filepath.Join(dir, name), data)
		if err != nil {
			if cfg != nil {
				t.Fatalf("Load returned a configuration with error %v", err)
			}
			for _, e := range testenv.Leaves(err) {
				if !errors.Is(e, ErrInvalid) {
					t.Fatalf("Load refused a bad file with %v, which is not a configuration error (ErrInvalid)", e)
				}
			}
			return
		}
		if err := cfg.Validate(); err != nil {
			t.Fatalf("Load returned a configuration that fails Validate: %v", err)
		}
		out := encodeYAML(t, cfg)
		again, err := loadBytes(t, filepath.Join(dir, "again.yaml"), out)
		if err != nil {
			t.Fatalf("the printed configuration does not load: %v\n%s", err, out)
		}
		if !reflect.DeepEqual(again, cfg) {
			t.Fatalf("the printed configuration loads to\n%+v\nnot\n%+v\nprinted:\n%s", again, cfg, out)
		}
		// The redacted output loads too, except that a redacted
		// announce_secret (Secret, 5 bytes) is shorter than Validate's
		// minimum: a known limit of `config check`'s "the output is itself
		// a valid configuration file", not checked here.
		red := encodeYAML(t, cfg.Redacted())
		if _, err := loadBytes(t, filepath.Join(dir, "redacted.yaml"), red); err != nil && cfg.Directory.AnnounceSecret == "" {
			t.Fatalf("the redacted configuration `config check` prints does not load: %v\n%s", err, red)
		}
	})
}

// loadBytes writes data to path and loads it.
func loadBytes(t *testing.T, path string, data []byte) (*Config, error) {
	t.Helper()
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return Load(LoadOptions{File: path})
}

// encodeYAML writes c as `a2abus config check` prints it.
func encodeYAML(t testing.TB, c *Config) []byte {
	t.Helper()
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(c); err != nil {
		t.Fatalf("encode configuration: %v", err)
	}
	if err := enc.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}
