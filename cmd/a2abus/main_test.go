// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package main

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/a2abus/a2abus/internal/testenv"

	"github.com/a2abus/a2abus/config"
)

// isolate clears every A2ABUS_* configuration variable (empty counts as
// unset) and returns a config file path holding content.
func isolate(t *testing.T, content string) string { return testenv.IsolateConfig(t, content) }

func runCLI(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = run(args, &out, &errOut)
	return code, out.String(), errOut.String()
}

func TestVersion(t *testing.T) {
	isolate(t, "")
	t.Setenv("A2ABUS_BUS_URL", "http://bad") // version needs no configuration
	want := "a2abus version dev (commit dev, built unknown, " + runtime.Version() + ", " + runtime.GOOS + "/" + runtime.GOARCH + ")\n"
	for _, arg := range []string{"version", "--version"} {
		code, out, errOut := runCLI(t, arg)
		if code != 0 || errOut != "" {
			t.Fatalf("%s: exit %d, stderr %q", arg, code, errOut)
		}
		if out != want {
			t.Errorf("%s: stdout = %q, want %q", arg, out, want)
		}
	}
}

func TestConfigCheckPrintsResolvedConfig(t *testing.T) {
	p := isolate(t, "bus:\n  exchange: tenant-a\n")
	t.Setenv("A2ABUS_MEMORY_RESULT_TTL", "90m")
	code, out, errOut := runCLI(t, "config", "check", "--config", p, "--log-level", "debug")
	if code != 0 || errOut != "" {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	if !strings.Contains(out, "# file: "+p+"\n") {
		t.Errorf("output does not name the file:\n%s", out)
	}
	// The output is itself a configuration file: load it back.
	back := filepath.Join(t.TempDir(), "back.yaml")
	if err := os.WriteFile(back, []byte(out), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("A2ABUS_MEMORY_RESULT_TTL", "")
	got, err := config.Load(config.LoadOptions{File: back})
	if err != nil {
		t.Fatalf("reload the printed configuration: %v\n%s", err, out)
	}
	// What applies is printed: the local servers for the unset URLs (the
	// password hidden), the console format of short commands.
	want := config.Default()
	want.Bus.Exchange = "tenant-a"
	want.Memory.ResultTTL = 90 * time.Minute
	want.Log.Level = "debug"
	want.Log.Format = "console"
	want.Bus.URL = "amqp://guest:xxxxx@127.0.0.1:5672/"
	want.Redis.URL = "redis://127.0.0.1:6379/0"
	if !reflect.DeepEqual(got, want) {
		t.Errorf("printed configuration =\n%+v\nwant\n%+v", got, want)
	}
}

func TestConfigCheckHidesSecrets(t *testing.T) {
	p := isolate(t, "redis:\n  password: from-file-secret\n")
	t.Setenv("A2ABUS_REDIS_URL", "redis://agent:env-secret@cache:6379/0")
	t.Setenv("A2ABUS_DIRECTORY_ANNOUNCE_SECRET", "announce-env-secret")
	t.Setenv("A2ABUS_LLM_API_KEY", "sk-llm-env-secret")
	t.Setenv("A2ABUS_LLM_BASE_URL", "http://127.0.0.1:11434/v1")
	t.Setenv("A2ABUS_LLM_MODEL", "llama3.1")
	t.Setenv("A2ABUS_GATEWAY_KEYS", "Alice=gateway-key-env-secret")
	code, out, errOut := runCLI(t, "config", "check", "--config", p, "--amqp-url", "amqps://u:flag-secret@rabbit/")
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	for _, secret := range []string{"from-file-secret", "env-secret", "flag-secret", "announce-env-secret", "sk-llm-env-secret", "gateway-key-env-secret"} {
		if strings.Contains(out, secret) {
			t.Errorf("output shows %q:\n%s", secret, out)
		}
	}
	for _, want := range []string{"url: amqps://u:xxxxx@rabbit/", "url: redis://agent:xxxxx@cache:6379/0", "password: xxxxx", "announce_secret: xxxxx", "api_key: xxxxx", "Alice=xxxxx"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

// TestConfigCheckWarns: a bus on the shared guest user (development) works
// as before, and config check says identities are not enforced, as a
// comment that keeps the output loadable.
func TestConfigCheckWarns(t *testing.T) {
	p := isolate(t, "")
	code, out, errOut := runCLI(t, "config", "check", "--config", p, "--amqp-url", "amqp://guest:guest@rabbit:5672/")
	if code != 0 || !strings.Contains(out, "# warning: bus.url connects as the shared broker user \"guest\"") {
		t.Fatalf("exit %d, stderr %q, stdout:\n%s", code, errOut, out)
	}
	code, out, _ = runCLI(t, "config", "check", "--config", p, "--amqp-url", "amqp://sampleagent:pw@127.0.0.1:5672/") // local: no TLS warning either
	if code != 0 || strings.Contains(out, "# warning:") {
		t.Fatalf("exit %d, a per-agent user warned:\n%s", code, out)
	}
}

func TestConfigCheckBadConfig(t *testing.T) {
	tests := []struct {
		name string
		env  map[string]string
		args []string
		want []string // stderr lines
	}{
		{
			name: "bad env url",
			env:  map[string]string{"A2ABUS_BUS_URL": "http://rabbit:5672/"},
			want: []string{`a2abus: config: bus.url: scheme must be amqp or amqps, got "http"`},
		},
		{
			name: "bad env and flag",
			env:  map[string]string{"A2ABUS_BUS_MAX_ATTEMPTS": "0"},
			args: []string{"--log-format", "xml"},
			want: []string{
				`a2abus: config: log.format: must be one of json|console, got "xml"`,
				`a2abus: config: bus.max_attempts: must be between 1 and 100, got 0`,
			},
		},
		{
			name: "missing config file",
			args: []string{"--config", "/nonexistent/a2abus.yaml"},
			want: []string{`a2abus: config: read file: open /nonexistent/a2abus.yaml: no such file or directory`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := isolate(t, "")
			for k, v := range tt.env {
				t.Setenv(k, v)
			}
			args := append([]string{"config", "check", "--config", p}, tt.args...)
			code, out, errOut := runCLI(t, args...)
			if code == 0 {
				t.Fatalf("exit 0, want non-zero; stdout:\n%s", out)
			}
			if out != "" {
				t.Errorf("stdout = %q, want nothing", out)
			}
			if got := strings.Split(strings.TrimSuffix(errOut, "\n"), "\n"); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("stderr =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

func TestUsageErrors(t *testing.T) {
	isolate(t, "")
	for _, args := range [][]string{{"bogus"}, {"config", "check", "extra"}, {"version", "--nope"}} {
		code, _, errOut := runCLI(t, args...)
		if code == 0 || !strings.HasPrefix(errOut, "a2abus: ") || strings.Count(errOut, "a2abus: ") != 1 {
			t.Errorf("%v: exit %d, stderr %q; want non-zero and one a2abus: error", args, code, errOut)
		}
	}
}

func TestMain(m *testing.M) {
	code := m.Run()
	testenv.RemoveBuilds()
	os.Exit(code)
}

// TestMistypedEnvironmentVariableWarns: a command given A2ABUS_BUS_URLL
// warns that it sets nothing and names A2ABUS_BUS_URL, and still runs.
func TestMistypedEnvironmentVariableWarns(t *testing.T) {
	p := isolate(t, "")
	t.Setenv("A2ABUS_BUS_URLL", "amqp://rabbit:5672/")
	code, out, errOut := runCLI(t, "config", "check", "--config", p)
	if code != 0 || !strings.Contains(errOut, "environment variable A2ABUS_BUS_URLL sets no configuration key and is ignored (did you mean A2ABUS_BUS_URL?)") ||
		strings.Contains(out, "rabbit") {
		t.Fatalf("exit %d\nstdout %s\nstderr %s", code, out, errOut)
	}
}
