// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package cliutil

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"
)

// TestPrintable: what drives a terminal is made visible, the rest is kept.
func TestPrintable(t *testing.T) {
	for _, tc := range []struct{ in, want, line string }{
		{"plain text, ünïcode ✓", "plain text, ünïcode ✓", "plain text, ünïcode ✓"},
		{"two\nlines\tand a tab", "two\nlines\tand a tab", `two\nlines\tand a tab`},
		{"\x1b[2Jcleared", `\x1b[2Jcleared`, `\x1b[2Jcleared`},
		{"\x1b]0;owned\x07title", `\x1b]0;owned\x07title`, `\x1b]0;owned\x07title`},
		{"ok\n\x1b[1A\rfaked", "ok\n" + `\x1b[1A\x0dfaked`, `ok\n\x1b[1A\x0dfaked`},
		{"del\x7f nul\x00 bs\b", `del\x7f nul\x00 bs\x08`, `del\x7f nul\x00 bs\x08`},
		{"c1 csi \u009b2J osc \u009d0;x", `c1 csi \u009b2J osc \u009d0;x`, `c1 csi \u009b2J osc \u009d0;x`},
		{"bidi \u202eevil\u2066", `bidi \u202eevil\u2066`, `bidi \u202eevil\u2066`},
		{"bad utf-8 \x9b2J \xff", `bad utf-8 \x9b2J \xff`, `bad utf-8 \x9b2J \xff`},
	} {
		if got := Printable(tc.in); got != tc.want {
			t.Errorf("Printable(%q) = %q, want %q", tc.in, got, tc.want)
		}
		if got := PrintableLine(tc.in); got != tc.line {
			t.Errorf("PrintableLine(%q) = %q, want %q", tc.in, got, tc.line)
		}
		for _, out := range []string{Printable(tc.in), PrintableLine(tc.in)} {
			if strings.ContainsAny(out, "\x1b\x07\x7f\r\u009b\u009d\u202e") {
				t.Errorf("%q still holds a control character: %q", tc.in, out)
			}
		}
	}
	if n := testing.AllocsPerRun(100, func() { _ = Printable("nothing to escape here, ✓") }); n != 0 {
		t.Errorf("Printable of a clean string allocates %v times", n)
	}
}

// specLike unwraps, as the spec errors do, to a sentinel (and a cause that
// may be nil): its parts are not its message.
type specLike struct{ cause error }

var errSentinel = errors.New("pkg: invalid file")

func (e *specLike) Error() string   { return "pkg f.yaml: steps[1].agent: \x1b[2Jbad name" }
func (e *specLike) Unwrap() []error { return []error{errSentinel, e.cause} }

// TestErrorPrinting: an error is printed by its own message — the file,
// field and rule of a spec error, never its sentinel nor a nil cause —
// one line per line (a joined error's errors), control characters visible.
func TestErrorPrinting(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  error
		want string
	}{
		{"spec error with a nil cause", &specLike{}, "tool: pkg f.yaml: steps[1].agent: \\x1b[2Jbad name\n"},
		{"wrapped spec error", fmt.Errorf("load: %w", &specLike{cause: errors.New("x")}), "tool: load: pkg f.yaml: steps[1].agent: \\x1b[2Jbad name\n"},
		{"joined", errors.Join(errors.New("config: a: bad"), errors.New("config: b: bad")), "tool: config: a: bad\ntool: config: b: bad\n"},
		{"task error from an agent", TaskFailed(errors.New("EXECUTION_FAILED: \x1b]0;pwned\x07done")), "tool: EXECUTION_FAILED: \\x1b]0;pwned\\x07done\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			root := jsonTool(tc.err, "")
			root.SetOut(&stdout)
			Execute(root, []string{"do", "x"}, &stderr)
			if stderr.String() != tc.want || strings.Contains(stderr.String(), "<nil>") {
				t.Fatalf("stderr %q, want %q", stderr.String(), tc.want)
			}
		})
	}
}
