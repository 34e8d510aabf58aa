// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package main

import (
	"strings"
	"testing"

	"github.com/a2abus/a2abus/internal/testenv"
	"github.com/a2abus/a2abus/pkg/tools"
)

type oneAgent struct{}

func (oneAgent) ListAgents(string, string) []tools.AgentInfo {
	return []tools.AgentInfo{{Name: "SampleAgent", Status: tools.StatusOnline, Instances: 2, Skills: []tools.SkillInfo{{ID: "echo"}, {ID: "npv"}}}}
}

// The commands are answered here, in plain text off a terminal; every
// other line, and a "//" line with one '/' removed, is for the model.
func TestChatCommands(t *testing.T) {
	out := &testenv.Buffer{}
	p := newChatPrinter(out, out, true, false)
	defer p.close()
	c := &chatCommands{directory: oneAgent{}, out: p}
	for _, tc := range []struct {
		line, send, shows string
		handled, quit     bool
	}{
		{line: "/help", handled: true, shows: "  /agents  the agents the directory knows, with their skills\n  /tasks   the sub-tasks"},
		{line: " /AGENTS ", handled: true, shows: "  SampleAgent (online, 2 instances): echo, npv\n"},
		{line: "/agnets", handled: true, shows: "unknown command /agnets — did you mean /agents?"},
		{line: "/zzzzzzzz", handled: true, shows: "unknown command /zzzzzzzz (/help lists"},
		{line: "/quit", handled: true, quit: true},
		{line: "//etc/hosts is a file?", send: "/etc/hosts is a file?"},
		{line: "what is /tasks?", send: "what is /tasks?"},
	} {
		before := len(out.String())
		send, handled, quit := c.handle(tc.line)
		shown := out.String()[before:]
		if send != tc.send || handled != tc.handled || quit != tc.quit || !strings.Contains(shown, tc.shows) {
			t.Errorf("handle(%q) = %q, %v, %v, showing %q; want %q, %v, %v, showing %q", tc.line, send, handled, quit, shown, tc.send, tc.handled, tc.quit, tc.shows)
		}
		if strings.Contains(shown, "\033") || strings.Contains(shown, chatPrompt) {
			t.Errorf("handle(%q) drew the terminal's live line off a terminal: %q", tc.line, shown)
		}
	}
}
