// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package main

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/a2abus/a2abus/internal/cliutil"
)

// An unknown flag names the nearest ones, as an unknown command does.
func TestUnknownFlagSuggests(t *testing.T) {
	isolate(t, "")
	for args, want := range map[string]string{
		"invoke --jsn":         "a2abus: unknown flag: --jsn (did you mean --json?)\n",
		"invoke --tiemout 1s":  "a2abus: unknown flag: --tiemout (did you mean --timeout?)\n",
		"agents --ski x":       "a2abus: unknown flag: --ski (did you mean --skill?)\n",
		"config check --confg": "a2abus: unknown flag: --confg (did you mean --config?)\n",
		"doctor --zzzzzzzz":    "a2abus: unknown flag: --zzzzzzzz\n",
	} {
		code, _, errOut := runCLI(t, strings.Fields(args)...)
		if code != cliutil.ExitFailure || errOut != want {
			t.Errorf("%s: exit %d, stderr %q, want %q", args, code, errOut, want)
		}
	}
	code, out, _ := runCLI(t, "invoke", "--jsn", "--json")
	if code != cliutil.ExitFailure || !strings.Contains(out, `"code":"USAGE"`) || !strings.Contains(out, "did you mean --json?") {
		t.Errorf("--json: exit %d, stdout %q", code, out)
	}
}

// An empty or blank task text (or answer) is refused before anything is
// published: exit 3, INVALID_INPUT naming the argument.
func TestBlankTextIsARefusal(t *testing.T) {
	isolate(t, "")
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"invoke", "SampleAgent", "echo", ""}, "INVALID_INPUT: invoke: TEXT (the third argument) is empty"},
		{[]string{"invoke", "SampleAgent", "echo", " \t "}, "INVALID_INPUT: invoke: TEXT (the third argument) is empty"},
		{[]string{"reply", "t1", "  "}, "INVALID_INPUT: reply: ANSWER (the argument after TASK) is empty"},
		{[]string{"invoke", "--task", "t1", ""}, "INVALID_INPUT: reply: ANSWER (the argument after TASK) is empty"},
	} {
		code, out, errOut := runCLI(t, append(tt.args, "--embedded")...)
		if code != cliutil.ExitRefused || !strings.Contains(errOut, tt.want) || out != "" {
			t.Errorf("%q: exit %d, stdout %q, stderr %q", tt.args, code, out, errOut)
		}
	}
	code, out, _ := runCLI(t, "invoke", "SampleAgent", "echo", "", "--json", "--embedded")
	var obj struct {
		Error struct {
			Code     string `json:"code"`
			ExitCode int    `json:"exitCode"`
		} `json:"error"`
	}
	if err := json.Unmarshal([]byte(out), &obj); err != nil || code != cliutil.ExitRefused || obj.Error.Code != "INVALID_INPUT" || obj.Error.ExitCode != 3 {
		t.Errorf("--json: exit %d, %v, %s", code, err, out)
	}
}

// A task that times out is reported once: on stderr, as the exit's
// reason; stdout keeps the outcome (its state and memory key).
func TestTimeoutPrintedOnce(t *testing.T) {
	isolate(t, "")
	code, out, errOut := runCLI(t, "invoke", "Nobody", "echo", "hi", "--wait", "--timeout", "500ms", "--directory-wait", "0", "--embedded")
	if code != exitTaskFailed || strings.Count(out+errOut, "TIMEOUT") != 1 || !strings.Contains(errOut, "a2abus: TIMEOUT: ") ||
		!strings.Contains(out, "(state=failed, memory key ") {
		t.Fatalf("exit %d\nstdout %s\nstderr %s", code, out, errOut)
	}
}

// The live line's width: the terminal's when the output is one, else
// $COLUMNS, else 80.
func TestTerminalWidthFallbacks(t *testing.T) {
	t.Setenv("COLUMNS", "")
	if w := terminalWidth(&bytes.Buffer{}); w != 80 {
		t.Errorf("no terminal, no COLUMNS: %d", w)
	}
	t.Setenv("COLUMNS", "132")
	if w := terminalWidth(&bytes.Buffer{}); w != 132 {
		t.Errorf("COLUMNS=132: %d", w)
	}
	r, w, err := os.Pipe() // a file, but no terminal: GetSize fails
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = r.Close(); _ = w.Close() }()
	if got := terminalWidth(w); got != 132 {
		t.Errorf("a pipe with COLUMNS=132: %d", got)
	}
}
