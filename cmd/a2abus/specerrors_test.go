// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// badFile is a file the CLI must refuse, and what its message must name:
// the field path ("" for the file as a whole) and the rule broken.
type badFile struct{ name, src, field, rule string }

// checkRefused runs args (the file's path appended) and asserts the error
// names the file, the field and the rule, and never prints "<nil>".
func checkRefused(t *testing.T, dir string, c badFile, args ...string) {
	t.Helper()
	p := filepath.Join(dir, strings.ReplaceAll(c.name, " ", "-")+".yaml")
	if err := os.WriteFile(p, []byte(c.src), 0o600); err != nil {
		t.Fatal(err)
	}
	code, _, errOut := runCLI(t, append(args, p)...)
	if code != 1 || !strings.Contains(errOut, p) || !strings.Contains(errOut, c.rule) || strings.Contains(errOut, "<nil>") ||
		(c.field != "" && !strings.Contains(errOut, ": "+c.field+": ")) {
		t.Errorf("%s: exit %d, stderr:\n%s\nwant the file %s, the field %q and the rule %q", c.name, code, errOut, p, c.field, c.rule)
	}
}

// TestBadWorkflowFilesNameFileFieldAndRule: `a2abus workflow run FILE`
// refuses each broken workflow file with a message that names the file,
// the field path and the rule (refused before any server is dialled).
func TestBadWorkflowFilesNameFileFieldAndRule(t *testing.T) {
	isolate(t, "")
	const ok = "{id: s, agent: A, skill: k, text: t}"
	for _, c := range []badFile{
		{"cycle", "name: cyc\nsteps:\n  - {id: a, agent: A, skill: k, text: '${steps.b.text}'}\n  - {id: b, agent: A, skill: k, text: '${steps.a.text}'}\n", "steps[0]", `${steps.b.text} refers to step "b", which does not run before step "a"`},
		{"self reference", "name: a\nsteps: [{id: s, agent: A, skill: k, text: '${steps.s.text}'}]", "steps[0]", `refers to step "s", which does not run before step "s"`},
		{"sibling", "name: a\nsteps: [{parallel: [" + ok + ", {id: t, agent: A, skill: k, text: '${steps.s.text}'}]}]", "steps[0].parallel[1]", "in parallel with or after"},
		{"unknown step", "name: a\nsteps: [{id: s, agent: A, skill: k, text: '${steps.zz.text}'}]", "steps[0]", `refers to step "zz", which does not run before`},
		{"bad name", "name: 'a b'\nsteps: [" + ok + "]", "name", "skill id"},
		{"no steps", "name: a\nsteps: []", "steps", "at least one step"},
		{"bad step id", "name: a\nsteps: [{id: 1x, agent: A, skill: k, text: t}]", "steps[0].id", "must match"},
		{"duplicate id", "name: a\nsteps: [" + ok + ", " + ok + "]", "steps[1].id", "already used by steps[0]"},
		{"bad agent", "name: a\nsteps: [{id: s, agent: a.b, skill: k, text: t}]", "steps[0].agent", "agent name"},
		{"bad skill", "name: a\nsteps: [{id: s, agent: A, skill: 'k k', text: t}]", "steps[0].skill", "skill id"},
		{"no text", "name: a\nsteps: [{id: s, agent: A, skill: k}]", "steps[0]", "needs a text or an input"},
		{"bad timeout", "name: a\nsteps: [{id: s, agent: A, skill: k, text: t, timeout: soon}]", "steps[0].timeout", "positive duration"},
		{"retries", "name: a\nsteps: [{id: s, agent: A, skill: k, text: t, retries: 11}]", "steps[0].retries", "between 0 and 10"},
		{"quorum", "name: a\nsteps: [{parallel: [" + ok + "], quorum: 2}]", "steps[0].quorum", "between 1 and the group's 1 steps"},
		{"quorum on a step", "name: a\nsteps: [{id: s, agent: A, skill: k, text: t, quorum: 1}]", "steps[0].quorum", "belongs to a parallel group"},
		{"group with agent", "name: a\nsteps: [{agent: A, parallel: [" + ok + "]}]", "steps[0]", "takes only id, quorum and parallel"},
		{"nested group", "name: a\nsteps: [{parallel: [{parallel: []}]}]", "steps[0].parallel[0]", "do not nest"},
		{"empty group", "name: a\nsteps: [{parallel: []}]", "steps[0].parallel", "at least one step"},
		{"empty step", "name: a\nsteps: [~]", "steps[0]", "empty step"},
		{"bad root", "name: a\nsteps: [{id: s, agent: A, skill: k, text: '${env.HOME}'}]", "steps[0].text", "starts with input, request or steps"},
		{"bad output field", "name: a\nsteps: [" + ok + ", {id: t, agent: A, skill: k, text: '${steps.s.body}'}]", "steps[1].text", "not body"},
		{"bad input key", "name: a\nsteps: [{id: s, agent: A, skill: k, input: {1: x}}]", "steps[0].input", "mapping key 1 is not a string"},
		{"unknown field", "name: a\nstepz: []", "", "unknown field stepz"},
		{"unknown step field", "name: a\nsteps: [{id: s, agent: A, skill: k, txt: t}]", "", "unknown field txt"},
		{"not yaml", "name: [", "", "not a valid workflow"},
		{"two documents", "name: a\nsteps: [" + ok + "]\n---\nname: b\n", "", "one workflow per file"},
	} {
		checkRefused(t, t.TempDir(), c, "workflow", "run")
	}
}

// TestBadAgentFilesNameFileFieldAndRule: `a2abus serve --agent-file FILE`
// refuses each broken agent file with a message that names the file, the
// field path and the rule (refused before any server is dialled).
func TestBadAgentFilesNameFileFieldAndRule(t *testing.T) {
	isolate(t, "")
	base := "name: A\ndescription: d\nskills:\n  - id: s\n    system_prompt: p\n"
	for _, c := range []badFile{
		{"unknown top field", base + "colour: red\n", "colour", "unknown field; the fields here are name, description"},
		{"unknown nested field", base + "    context:\n      max_agee: 10m\n", "skills[0].context.max_agee", "unknown field"},
		{"duration as number", base + "    context:\n      max_age: 600\n", "skills[0].context.max_age", "want a duration such as 600s or 10m"},
		{"negative duration", base + "    context:\n      max_age: -1m\n", "skills[0].context.max_age", "must be a positive duration"},
		{"number as text", base + "    max_tool_rounds: many\n", "skills[0].max_tool_rounds", `want a whole number, got "many"`},
		{"list wanted", base + "    allowed_tools: invoke_agent\n", "skills[0].allowed_tools", "want a list"},
		{"unknown role", base + "    context:\n      roles: [user, bot]\n", "skills[0].context.roles[1]", `unknown role "bot"`},
		{"unknown tool", base + "    allowed_tools: [shell]\n", "skills[0].allowed_tools[0]", `unknown tool "shell"`},
		{"invoke without permission", base + "    allowed_tools: [invoke_agent]\n", "skills[0].allowed_tools", "allow_sub_agent_calls is false"},
		{"permission without agents", base + "    allow_sub_agent_calls: true\n    allowed_tools: [invoke_agent]\n", "skills[0].allowed_agents", "names no agent"},
		{"bad agent name", base + "    allow_sub_agent_calls: true\n    allowed_tools: [invoke_agent]\n    allowed_agents: [a.b]\n", "skills[0].allowed_agents[0]", `"a.b" is not an agent name`},
		{"negative tokens", base + "    max_context_tokens: -5\n", "skills[0].max_context_tokens", "must be positive, got -5"},
		{"bad schema", base + "    input_schema: {type: 12}\n", "skills[0].input_schema", "invalid schema"},
		{"no prompt", "name: A\ndescription: d\nskills:\n  - id: s\n", "skills[0].system_prompt", "is required"},
		{"bad skill id", "name: A\ndescription: d\nskills:\n  - id: 's s'\n    system_prompt: p\n", "skills[0].id", "is not a skill id"},
		{"duplicate skill", base + "  - id: s\n    system_prompt: q\n", "skills[1].id", "declared twice"},
		{"no skills", "name: A\ndescription: d\n", "skills", "at least one skill"},
		{"bad name", "name: 9lives\ndescription: d\n", "name", "is not an agent name"},
		{"alias", "name: &n A\ndescription: *n\n", "description", "aliases are not accepted"},
		{"two documents", base + "---\nname: B\n", "", "one agent per file"},
		{"not yaml", "name: [\n", "", "not valid YAML"},
	} {
		checkRefused(t, t.TempDir(), c, "serve", "--agent-file")
	}
}
