// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package main

import (
	"strings"
	"testing"
)

// serve --remote refuses, before it connects, a name nobody declared (naming
// those declared), the flags of other kinds of agent, and --name.
func TestServeRemoteRefusals(t *testing.T) {
	isolate(t, "")
	t.Setenv("A2ABUS_BUS_URL", "amqp://guest:guest@127.0.0.1:1/") // nothing listens there
	t.Setenv("A2ABUS_DIRECTORY_WELL_KNOWN_FILE", "")
	t.Setenv("A2ABUS_REMOTE_AGENTS", `[{"name": "Weather", "card_url": "https://weather.example.com"}]`)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"serve", "--remote", "Nope"}, `remote: no such remote agent: "Nope" (known: Weather)`},
		{[]string{"serve", "--remote", "Weather", "--exec", "true"}, "--remote serves remote agents: give no --exec with it"},
		{[]string{"serve", "--remote", "Weather", "--agent", "SampleAgent"}, "give no --agent with it"},
		{[]string{"serve", "--remote", "Weather", "--name", "Other"}, "give no --name with it"},
	} {
		code, _, errOut := runCLI(t, tc.args...)
		if code == 0 || !strings.Contains(errOut, tc.want) {
			t.Errorf("a2abus %s: exit %d, stderr %q; want an error containing %q", strings.Join(tc.args, " "), code, errOut, tc.want)
		}
	}
}

// access plan plans for the remote agents of remote.agents: serve --remote
// connects as each.
func TestAccessPlanIncludesRemoteAgents(t *testing.T) {
	isolate(t, "")
	t.Setenv("A2ABUS_DIRECTORY_WELL_KNOWN_FILE", "")
	t.Setenv("A2ABUS_REMOTE_AGENTS", `[{"name": "Weather", "card_url": "https://weather.example.com"}]`)
	code, out, errOut := runCLI(t, "access", "plan")
	if code != 0 || !strings.Contains(out, `rabbitmqctl 'add_user' 'Weather'`) {
		t.Fatalf("access plan: exit %d, stderr %q, stdout:\n%s\nwant the user and queue of Weather", code, errOut, out)
	}
}
