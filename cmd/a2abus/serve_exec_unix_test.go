// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

//go:build unix

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/a2abus/a2abus/config"
)

// serve --exec takes its command as one line to split, or as the words
// after --, given to the process as they are; anything else is refused
// before the process starts, saying how to write it.
func TestServeExecCommandForms(t *testing.T) {
	isolate(t, "")
	t.Setenv("A2ABUS_BUS_URL", config.EmbeddedURL)
	t.Setenv("A2ABUS_REDIS_URL", config.EmbeddedURL)
	t.Setenv("A2ABUS_DIRECTORY_WELL_KNOWN_FILE", "")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"serve", "--exec"}, "--exec needs the agent's command: --exec 'CMD ARGS', or --exec -- CMD ARGS"},
		{[]string{"serve", "--exec", "--"}, "--exec --: no program after --"},
		{[]string{"serve", "--exec", "python3", "agent.py"}, `got the 2 words ["python3" "agent.py"]; write --exec -- python3 agent.py`},
		{[]string{"serve", "--exec=python3 agent.py", "extra"}, `the arguments ["extra"] are left over`},
		{[]string{"serve", "--exec", "x", "--", "y"}, `["x"] before -- is neither a flag nor the command`},
		{[]string{"serve", "--exec", "python3 'agent.py"}, "unterminated single quote"},
		{[]string{"serve", "extra"}, `unknown command "extra"`},
	} {
		code, _, errOut := runCLI(t, tc.args...)
		if code == 0 || !strings.Contains(errOut, tc.want) {
			t.Errorf("a2abus %q: exit %d, stderr %q; want an error containing %q", tc.args, code, errOut, tc.want)
		}
	}

	// The words after -- reach the process as they are: quotes, $, | and a
	// flag of serve's own (--name) included. The script writes them and
	// exits without a card, so serve fails after it ran.
	out := filepath.Join(t.TempDir(), "argv")
	words := []string{"it's a $HOME | x", "--name", ""}
	code, _, errOut := runCLI(t, append([]string{"serve", "--name", "ArgvAgent", "--exec", "--", "/bin/sh", "-c", `printf '%s\n' "$@" > "$0"`, out}, words...)...)
	got, err := os.ReadFile(out)
	if err != nil || string(got) != strings.Join(words, "\n")+"\n" {
		t.Fatalf("the process received %q (%v), want %q; exit %d, stderr %s", got, err, words, code, errOut)
	}
	if code == 0 || !strings.Contains(errOut, "no agent card") {
		t.Errorf("exit %d, stderr %q: want the missing card reported", code, errOut)
	}
}
