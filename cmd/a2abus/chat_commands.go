// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package main

import (
	"fmt"
	"strings"

	"github.com/a2abus/a2abus/internal/text"
	"github.com/a2abus/a2abus/pkg/chat"
	"github.com/a2abus/a2abus/pkg/tools"
)

// chatCommandList names the lines the interactive chat answers itself,
// never sending them to the model, in the order /help lists them.
var chatCommandList = []struct{ name, help string }{
	{"/help", "list these commands"},
	{"/agents", "the agents the directory knows, with their skills"},
	{"/tasks", "the sub-tasks of this session and their states"},
	{"/quit", "end the chat (Ctrl-D too)"},
}

// chatCommands runs the commands of one interactive chat.
type chatCommands struct {
	s         *chat.Session
	directory tools.Lister
	out       *chatPrinter
}

// handle runs line when it is a command (it starts with one '/'); handled
// is false for a line to send to the model, quit true for /quit. A line
// starting with "//" is sent with its first '/' removed.
func (c *chatCommands) handle(line string) (send string, handled, quit bool) {
	l := strings.TrimSpace(line)
	if strings.HasPrefix(l, "//") {
		return l[1:], false, false
	}
	if !strings.HasPrefix(l, "/") {
		return line, false, false
	}
	name, _, _ := strings.Cut(l, " ")
	switch strings.ToLower(name) {
	case "/help":
		c.help()
		return "", true, false
	case "/agents":
		c.agents()
		return "", true, false
	case "/tasks":
		c.tasks()
		return "", true, false
	case "/quit":
		return "", true, true
	}
	names := make([]string, len(chatCommandList))
	for i, cmd := range chatCommandList {
		names[i] = cmd.name
	}
	hint := ""
	if near := text.Nearest(name, names, 1, 3); len(near) > 0 {
		hint = fmt.Sprintf(" — did you mean %s?", near[0])
	}
	c.out.line(fmt.Sprintf("unknown command %s%s (/help lists the commands; start a line with // to send it as is)", name, hint))
	return "", true, false
}

func (c *chatCommands) help() {
	var lines []string
	for _, cmd := range chatCommandList {
		lines = append(lines, fmt.Sprintf("  %-8s %s", cmd.name, cmd.help))
	}
	c.out.line(append(lines, "Any other line goes to the model; a line starting with // is sent with one / removed.")...)
}

func (c *chatCommands) agents() {
	list := c.directory.ListAgents("", "")
	if w, ok := c.directory.(tools.Warmer); ok {
		select {
		case <-w.Warm():
		default:
			c.out.line("(the directory is still warming up: the running agents may not all have answered yet)")
		}
	}
	if len(list) == 0 {
		c.out.line("(no agents known yet: none announced itself, and the well-known file lists none)")
		return
	}
	lines := make([]string, len(list))
	for i, a := range list {
		skills := make([]string, len(a.Skills))
		for j, s := range a.Skills {
			skills[j] = s.ID
		}
		lines[i] = fmt.Sprintf("  %s (%s, %d %s): %s", a.Name, a.Status, a.Instances, plural(a.Instances, "instance", "instances"), strings.Join(skills, ", "))
	}
	c.out.line(lines...)
}

func (c *chatCommands) tasks() {
	list := c.s.Tasks()
	if len(list) == 0 {
		c.out.line("(no sub-tasks in this session yet)")
		return
	}
	lines := make([]string, len(list))
	for i, t := range list {
		state := stateWord(string(t.State))
		switch {
		case t.Question:
			state = "asks a question"
		case t.State == "":
			state = "running"
		}
		lines[i] = fmt.Sprintf("  %s  %s.%s  %s", t.ID, t.Agent, t.Skill, state)
	}
	c.out.line(lines...)
}
