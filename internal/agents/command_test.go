// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package agents

import (
	"bufio"
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/a2abus/a2abus/internal/testenv"

	"github.com/spf13/cobra"

	"github.com/a2abus/a2abus/internal/cliutil"
)

// isolate clears every A2ABUS_* variable (empty counts as unset) and
// returns a configuration file holding content.
func isolate(t *testing.T, content string) string { return testenv.IsolateConfig(t, content) }

func execute(cmd *cobra.Command, args ...string) (int, string) {
	var stderr bytes.Buffer
	code := cliutil.Execute(cmd, args, &stderr)
	return code, stderr.String()
}

// servingLine returns the fields of the "serving agent" log line.
func servingLine(t *testing.T, logs string) map[string]any {
	t.Helper()
	sc := bufio.NewScanner(strings.NewReader(logs))
	for sc.Scan() {
		var line map[string]any
		if json.Unmarshal(sc.Bytes(), &line) == nil && line["msg"] == "serving agent" {
			return line
		}
	}
	t.Fatalf("no \"serving agent\" line in:\n%s", logs)
	return nil
}

func TestResearchCommandIsOneShotByDefault(t *testing.T) {
	// The file says always-on; research-agent is one-shot unless --ephemeral=false.
	file := isolate(t, "agent:\n  ephemeral: false\n  idle_timeout: 1h\n")
	docs := testConfig(t).Research.DocsDir
	code, logs := execute(ResearchCommand(cliutil.Build{}), "--embedded", "--config", file, "--docs", docs, "--idle-timeout", "50ms", "--log-format", "json")
	if code != 0 {
		t.Fatalf("exit %d:\n%s", code, logs)
	}
	line := servingLine(t, logs)
	if line["agent"] != KindResearch || line["ephemeral"] != true {
		t.Errorf("serving line %v, want an ephemeral ResearchAgent", line)
	}
}

func TestSampleCommandFlagsOverrideTheConfig(t *testing.T) {
	file := isolate(t, "agent:\n  max_tasks: 3\n")
	code, logs := execute(SampleCommand(cliutil.Build{}), "--embedded", "--config", file, "--name", "Sampler", "--ephemeral", "--idle-timeout", "50ms")
	if code != 0 {
		t.Fatalf("exit %d:\n%s", code, logs)
	}
	line := servingLine(t, logs)
	if line["agent"] != "Sampler" || line["kind"] != KindSample || line["ephemeral"] != true {
		t.Errorf("serving line %v, want an ephemeral SampleAgent named Sampler", line)
	}
}

func TestCommandsRefuseBadFlags(t *testing.T) {
	isolate(t, "")
	for _, tc := range []struct {
		name string
		cmd  *cobra.Command
		args []string
		want string
	}{
		{"max tasks", SampleCommand(cliutil.Build{}), []string{"--max-tasks", "0"}, "sample-agent: --max-tasks must be at least 1, got 0\n"},
		{"idle timeout", ResearchCommand(cliutil.Build{}), []string{"--idle-timeout", "-1s"}, "research-agent: --idle-timeout must be a positive duration"},
		{"docs", ResearchCommand(cliutil.Build{}), []string{"--docs", ""}, "research-agent: --docs must name a folder"},
		{"name", SampleCommand(cliutil.Build{}), []string{"--name", "a.b", "--ephemeral", "--idle-timeout", "10ms"}, "sample-agent: agents: serve SampleAgent: a2a: invalid name"},
		{"research name", ResearchCommand(cliutil.Build{}), []string{"--name", "x.y", "--idle-timeout", "10ms"}, "research-agent: agents: serve ResearchAgent: a2a: invalid name"},
		{"arguments", SampleCommand(cliutil.Build{}), []string{"extra"}, "sample-agent: unknown command \"extra\""},
		{"log level", SampleCommand(cliutil.Build{}), []string{"--log-level", "loud"}, "sample-agent: config: log.level: must be one of"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, stderr := execute(tc.cmd, tc.args...)
			if code != 1 || !strings.HasPrefix(stderr, tc.want) {
				t.Fatalf("exit %d, stderr %q; want 1 and %q", code, stderr, tc.want)
			}
		})
	}
}

// TestCommandsLogJSONAtInfoOnTheLocalServers: the agent mains are daemons:
// without bus.url / redis.url they use the local servers (an unreachable
// one is a one-line error naming the key), and log JSON at info.
func TestCommandsLogJSONAtInfoOnTheLocalServers(t *testing.T) {
	isolate(t, "")
	t.Setenv("A2ABUS_REDIS_URL", "redis://127.0.0.1:2/0") // nothing listens on ports 1 and 2
	code, stderr := execute(SampleCommand(cliutil.Build{}), "--amqp-url", "amqp://guest:guest@127.0.0.1:1/", "--ephemeral", "--idle-timeout", "10ms")
	want := "sample-agent: cannot reach RabbitMQ at amqp://guest:xxxxx@127.0.0.1:1/ (bus.url, A2ABUS_BUS_URL or --amqp-url): "
	if code != 1 || !strings.HasPrefix(stderr, want) || strings.Count(stderr, "\n") != 1 {
		t.Fatalf("exit %d, stderr %q; want 1 and one line starting %q", code, stderr, want)
	}
	t.Setenv("A2ABUS_REDIS_URL", "")
	code, logs := execute(SampleCommand(cliutil.Build{}), "--embedded", "--ephemeral", "--idle-timeout", "10ms")
	if code != 0 || servingLine(t, logs)["level"] != "info" {
		t.Fatalf("exit %d: want JSON logs at info:\n%s", code, logs)
	}
}

func TestCommandsPrintTheirVersion(t *testing.T) {
	isolate(t, "")
	t.Setenv("A2ABUS_BUS_URL", "http://bad") // version needs no configuration
	b := cliutil.Build{Version: "v1.2.3", Commit: "abc1234", Date: "2026-11-26T18:03:00Z"}
	for _, mk := range []func(cliutil.Build) *cobra.Command{SampleCommand, ResearchCommand} {
		for _, arg := range []string{"version", "--version"} {
			cmd := mk(b)
			var out bytes.Buffer
			cmd.SetOut(&out)
			want := cmd.Name() + " version v1.2.3 (commit abc1234, built 2026-11-26T18:03:00Z, go"
			if code, stderr := execute(cmd, arg); code != 0 || !strings.HasPrefix(out.String(), want) {
				t.Errorf("%s %s: exit %d, stdout %q, stderr %q; want it to start with %q", cmd.Name(), arg, code, out.String(), stderr, want)
			}
		}
	}
}
