// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package main

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// config check prints what applies, each key with its source: the file, a
// variable, a flag, or the default with what the command made of it.
func TestConfigCheckNamesSources(t *testing.T) {
	p := isolate(t, "bus:\n  exchange: tenant-a\n")
	t.Setenv("A2ABUS_MEMORY_RESULT_TTL", "90m")
	code, out, errOut := runCLI(t, "config", "check", "--config", p, "--log-level", "debug")
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	for _, want := range []string{
		"  exchange: tenant-a # file\n",
		"  result_ttl: 1h30m0s # env A2ABUS_MEMORY_RESULT_TTL\n",
		"  level: debug # flag --log-level\n",
		"  format: console # default: short commands; serve, directory, mcp and the agents: json\n",
		"  url: amqp://guest:xxxxx@127.0.0.1:5672/ # default: unset, so the local server (demo and --embedded: the embedded bus)\n",
		"  url: redis://127.0.0.1:6379/0 # default: unset, so the local server",
		"  queue_type: classic # default\n",
		"  shared_users: # default\n",
		"# allowed calls (policy.*; a refusal names the key that would allow it):\n" +
			"#   Cli may call any agent (policy.rules[0])\n#   any other caller may call no agent (policy.default deny)\n",
		"  default: deny # default\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	code, out, _ = runCLI(t, "config", "check", "--config", p, "--embedded")
	if code != 0 || !strings.Contains(out, "  url: embedded:// # default: unset, so the embedded in-process bus (--embedded)\n") {
		t.Errorf("--embedded: exit %d\n%s", code, out)
	}
}

// config check --json: every key once, with its value as a file spells it
// and its source; the note where the command completed a default.
func TestConfigCheckJSON(t *testing.T) {
	p := isolate(t, "bus:\n  exchange: tenant-a\n")
	t.Setenv("A2ABUS_REDIS_URL", "redis://agent:env-secret@cache:6379/0")
	code, out, errOut := runCLI(t, "config", "check", "--config", p, "--json")
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	var rep struct {
		Valid    bool     `json:"valid"`
		File     string   `json:"file"`
		Warnings []string `json:"warnings"`
		Allowed  []string `json:"allowed"`
		Settings []struct {
			Key    string `json:"key"`
			Value  any    `json:"value"`
			Source string `json:"source"`
			Note   string `json:"note"`
		} `json:"settings"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if !rep.Valid || rep.File != p || rep.Warnings == nil {
		t.Errorf("valid %v, file %q, warnings %v", rep.Valid, rep.File, rep.Warnings)
	}
	if want := []string{"Cli may call any agent (policy.rules[0])", "any other caller may call no agent (policy.default deny)"}; !slices.Equal(rep.Allowed, want) {
		t.Errorf("allowed = %q, want %q", rep.Allowed, want)
	}
	got := map[string]string{}
	for _, s := range rep.Settings {
		if _, dup := got[s.Key]; dup {
			t.Errorf("%s listed twice", s.Key)
		}
		got[s.Key] = s.Source + " " + jsonString(s.Value) + " " + s.Note
	}
	for key, want := range map[string]string{
		"bus.exchange":      `file "tenant-a" `,
		"redis.url":         `env "redis://agent:xxxxx@cache:6379/0" `,
		"bus.url":           `default "amqp://guest:xxxxx@127.0.0.1:5672/" unset, so the local server (demo and --embedded: the embedded bus)`,
		"memory.result_ttl": `default "1h0m0s" `,
		"log.level":         `default "warn" short commands; serve, directory, mcp and the agents: info`,
	} {
		if got[key] != want {
			t.Errorf("%s = %s, want %s", key, got[key], want)
		}
	}
	if strings.Contains(out, "env-secret") {
		t.Errorf("the password is printed:\n%s", out)
	}
}

func jsonString(v any) string { b, _ := json.Marshal(v); return string(b) }

// An unknown key does not hide the other errors: config check names them
// all, on stderr, and with --json as a list of keys and reasons.
func TestConfigCheckReportsEveryError(t *testing.T) {
	p := isolate(t, "bus:\n  exchnage: typo\n  max_attempts: 0\nlog:\n  level: loud\n")
	code, out, errOut := runCLI(t, "config", "check", "--config", p)
	if code != 1 || out != "" {
		t.Fatalf("exit %d, stdout %q", code, out)
	}
	for _, want := range []string{
		`a2abus: config: bus.exchnage: unknown key in "` + p + `"`,
		"a2abus: config: bus.max_attempts: must be between 1 and 100, got 0",
		`a2abus: config: log.level: must be one of debug|info|warn|error, got "loud"`,
	} {
		if !strings.Contains(errOut, want+"\n") {
			t.Errorf("stderr lacks %q:\n%s", want, errOut)
		}
	}
	code, out, _ = runCLI(t, "config", "check", "--config", p, "--json")
	var rep struct {
		Valid  bool `json:"valid"`
		Errors []struct {
			Key    string `json:"key"`
			Reason string `json:"reason"`
		} `json:"errors"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil || code != 1 || rep.Valid {
		t.Fatalf("exit %d, %v:\n%s", code, err, out)
	}
	var keys []string
	for _, e := range rep.Errors {
		keys = append(keys, e.Key)
	}
	slices.Sort(keys)
	if strings.Join(keys, " ") != "bus.exchnage bus.max_attempts log.level" {
		t.Errorf("error keys %v:\n%s", keys, out)
	}
}
