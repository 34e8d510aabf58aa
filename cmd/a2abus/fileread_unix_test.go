// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

//go:build unix

package main

import (
	"strings"
	"testing"
	"time"

	"github.com/a2abus/a2abus/internal/testenv"
)

// runSoon is runCLI under testenv.Returns: a command that hangs fails the test.
func runSoon(t *testing.T, args ...string) (code int, stderr string) {
	t.Helper()
	type result struct {
		code   int
		stderr string
	}
	r := testenv.Returns(t, "a2abus "+strings.Join(args, " "), func() result {
		code, _, errOut := runCLI(t, args...)
		return result{code, errOut}
	}, testenv.Within(20*time.Second))
	return r.code, r.stderr
}

// TestFilesThatAreNotRegularAreRefusedAtOnce: `config check --config
// /dev/zero` used to read without end (24 GB, deaf to SIGTERM), `--card
// /dev/zero` the same, and a FIFO named *.yaml hung `workflow run` and
// `serve --agent-file`; each is refused at once, naming the path.
func TestFilesThatAreNotRegularAreRefusedAtOnce(t *testing.T) {
	isolate(t, "")
	fifo := testenv.FIFO(t, t.TempDir(), "pipe.yaml")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"config", "check", "--config", "/dev/zero"}, `a2abus: config: read file: "/dev/zero" is a character device, not a regular file`},
		{[]string{"config", "check", "--config", fifo}, `a2abus: config: read file: "` + fifo + `" is a named pipe (FIFO), not a regular file`},
		{[]string{"serve", "--exec", "true", "--card", "/dev/zero"}, `"/dev/zero" is a character device, not a regular file`},
		{[]string{"workflow", "run", fifo}, `"` + fifo + `" is a named pipe (FIFO), not a regular file`},
		{[]string{"serve", "--agent-file", fifo}, `"` + fifo + `" is a named pipe (FIFO), not a regular file`},
	} {
		code, errOut := runSoon(t, tc.args...)
		if code == 0 || !strings.Contains(errOut, tc.want) {
			t.Errorf("a2abus %s: exit %d, stderr %q; want an error containing %q", strings.Join(tc.args, " "), code, errOut, tc.want)
		}
	}
}
