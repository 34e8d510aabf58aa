// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package llmagent

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

const validSpec = `
name: Summarizer
description: Summarises the conversation for its caller.
skills:
  - id: summarize
    description: Summarise what was said.
    system_prompt: You summarise conversations in three sentences.
    input_schema:
      type: object
      properties:
        focus: {type: string}
    context:
      last_messages: 3
      roles: [user, assistant]
      max_age: 600s
      keywords: [deploy]
      include_summary: true
    max_context_tokens: 6000
  - id: delegate
    system_prompt: You delegate.
    allowed_tools: [invoke_agent, list_known_agents]
    allowed_agents: [Helper]
    allow_sub_agent_calls: true
`

func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestLoadAppliesDefaults(t *testing.T) {
	path := writeFile(t, t.TempDir(), "summarizer.yaml", validSpec)
	s, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if s.Name != "Summarizer" || s.Version != DefaultVersion || s.File != path || len(s.Skills) != 2 {
		t.Fatalf("spec %+v", s)
	}
	sum := s.Skill("summarize")
	f := sum.Context
	if sum.Name != "summarize" || sum.MaxContextTokens != 6000 || sum.MaxToolRounds != DefaultMaxToolRounds ||
		sum.MaxSubAgentDepth != DefaultMaxSubAgentDepth || sum.AllowSubAgentCalls || len(sum.AllowedTools) != 0 {
		t.Errorf("skill defaults: %+v", sum)
	}
	if f.LastMessages != 3 || f.MaxAge != 600*time.Second || !slices.Equal(f.Roles, []string{"user", "assistant"}) ||
		!slices.Equal(f.Keywords, []string{"deploy"}) || !f.IncludeSummary || f.MaxChars != 0 {
		t.Errorf("filter: %+v", f)
	}
	var schema map[string]any
	if err := json.Unmarshal(sum.InputSchema, &schema); err != nil || schema["type"] != "object" {
		t.Errorf("input schema %s: %v", sum.InputSchema, err)
	}
	del := s.Skill("delegate")
	if del.Context.LastMessages != DefaultLastMessages || !slices.Equal(del.Context.Roles, DefaultRoles) ||
		del.MaxContextTokens != DefaultMaxContextTokens || !del.MayCall("helper") || del.MayCall("Other") {
		t.Errorf("delegate defaults: %+v", del)
	}
	card := s.Card()
	if card.Name != "Summarizer" || len(card.Skills) != 2 || card.Skills[0].ID != "summarize" || card.Skills[1].Name != "delegate" {
		t.Errorf("card %+v", card)
	}
	if s.Skill("nope") != nil {
		t.Error("Skill(nope) found something")
	}
}

func TestInputSchemaAsJSONString(t *testing.T) {
	s, err := Parse("x.yaml", []byte(`
name: A
description: d
skills:
  - id: s
    system_prompt: p
    input_schema: '{"type":"object","required":["q"]}'
`))
	if err != nil {
		t.Fatal(err)
	}
	if string(s.Skills[0].InputSchema) != `{"type":"object","required":["q"]}` {
		t.Errorf("schema %s", s.Skills[0].InputSchema)
	}
}

func TestSpecErrorsNameFileFieldAndRule(t *testing.T) {
	base := "name: A\ndescription: d\nskills:\n  - id: s\n    system_prompt: p\n"
	cases := []struct {
		name, yaml, path, rule string
	}{
		{"unknown top field", base + "colour: red\n", "colour", "unknown field; the fields here are name, description, version, skills"},
		{"unknown nested field", base + "    context:\n      max_agee: 10m\n", "skills[0].context.max_agee", "unknown field"},
		{"duration as number", base + "    context:\n      max_age: 600\n", "skills[0].context.max_age", "want a duration such as 600s or 10m"},
		{"negative duration", base + "    context:\n      max_age: -1m\n", "skills[0].context.max_age", "must be a positive duration"},
		{"number as text", base + "    max_tool_rounds: many\n", "skills[0].max_tool_rounds", `want a whole number, got "many"`},
		{"list wanted", base + "    allowed_tools: invoke_agent\n", "skills[0].allowed_tools", "want a list"},
		{"unknown role", base + "    context:\n      roles: [user, bot]\n", "skills[0].context.roles[1]", `unknown role "bot"`},
		{"unknown tool", base + "    allowed_tools: [shell]\n", "skills[0].allowed_tools[0]", `unknown tool "shell"`},
		{"duplicate tool", base + "    allowed_tools: [list_known_agents, list_known_agents]\n", "skills[0].allowed_tools[1]", "listed twice"},
		{"invoke without permission", base + "    allowed_tools: [invoke_agent]\n", "skills[0].allowed_tools", "allow_sub_agent_calls is false"},
		{"permission without tool", base + "    allow_sub_agent_calls: true\n    allowed_agents: [B]\n", "skills[0].allow_sub_agent_calls", "lacks invoke_agent"},
		{"permission without agents", base + "    allow_sub_agent_calls: true\n    allowed_tools: [invoke_agent]\n", "skills[0].allowed_agents", "names no agent"},
		{"agents without permission", base + "    allowed_agents: [B]\n", "skills[0].allowed_agents", "allow_sub_agent_calls is false"},
		{"bad agent name", base + "    allow_sub_agent_calls: true\n    allowed_tools: [invoke_agent]\n    allowed_agents: [a.b]\n", "skills[0].allowed_agents[0]", `"a.b" is not an agent name`},
		{"depth too small", base + "    allow_sub_agent_calls: true\n    allowed_tools: [invoke_agent]\n    allowed_agents: ['*']\n    max_sub_agent_depth: 1\n", "skills[0].max_sub_agent_depth", "at least 2"},
		{"negative tokens", base + "    max_context_tokens: -5\n", "skills[0].max_context_tokens", "must be positive, got -5"},
		{"negative last", base + "    context:\n      last_messages: -2\n", "skills[0].context.last_messages", "or -1 for all"},
		{"empty keyword", base + "    context:\n      keywords: ['']\n", "skills[0].context.keywords[0]", "is empty"},
		{"bad schema", base + "    input_schema: {type: 12}\n", "skills[0].input_schema", "invalid schema"},
		{"schema string not JSON", base + "    input_schema: 'type: object'\n", "skills[0].input_schema", "must be valid JSON"},
		{"no prompt", "name: A\ndescription: d\nskills:\n  - id: s\n", "skills[0].system_prompt", "is required"},
		{"bad skill id", "name: A\ndescription: d\nskills:\n  - id: 's s'\n    system_prompt: p\n", "skills[0].id", "is not a skill id"},
		{"duplicate skill", base + "  - id: s\n    system_prompt: q\n", "skills[1].id", "declared twice"},
		{"no skills", "name: A\ndescription: d\n", "skills", "at least one skill"},
		{"no description", "name: A\nskills: []\n", "description", "is required"},
		{"bad name", "name: 9lives\ndescription: d\n", "name", "is not an agent name"},
		{"mapping wanted", "name: A\ndescription: d\nskills: [x]\n", "skills[0]", "want a mapping of fields"},
		{"alias", "name: &n A\ndescription: *n\n", "description", "aliases are not accepted"},
		{"two documents", base + "---\nname: B\n", "", "one agent per file"},
		{"not YAML", "name: [\n", "", "not valid YAML"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse("agents.d/a.yaml", []byte(c.yaml))
			var se *SpecError
			if !errors.Is(err, ErrInvalidSpec) || !errors.As(err, &se) {
				t.Fatalf("err = %v, want a *SpecError", err)
			}
			if se.File != "agents.d/a.yaml" || se.Path != c.path || !strings.Contains(se.Rule, c.rule) {
				t.Fatalf("err = %#v (%v), want path %q and rule containing %q", se, err, c.path, c.rule)
			}
			if !strings.HasPrefix(err.Error(), "llmagent: agents.d/a.yaml: ") {
				t.Errorf("message %q does not name the file first", err)
			}
		})
	}
}

func TestLoadDir(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "b.yml", "name: Bee\ndescription: d\nskills:\n  - id: s\n    system_prompt: p\n")
	writeFile(t, dir, "a.yaml", "name: Ay\ndescription: d\nskills:\n  - id: s\n    system_prompt: p\n")
	writeFile(t, dir, "notes.md", "not an agent")
	writeFile(t, dir, ".hidden.yaml", "garbage: [")
	specs, err := LoadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(specs) != 2 || specs[0].Name != "Ay" || specs[1].Name != "Bee" {
		t.Fatalf("specs %v", specs)
	}
	dup := writeFile(t, dir, "c.yaml", "name: ay\ndescription: d\nskills:\n  - id: s\n    system_prompt: p\n")
	var se *SpecError
	if _, err := LoadDir(dir); !errors.As(err, &se) || se.File != dup || !strings.Contains(se.Rule, "already declared in "+filepath.Join(dir, "a.yaml")) {
		t.Errorf("duplicate agent: %v", err)
	}
	if _, err := LoadDir(t.TempDir()); !errors.Is(err, ErrNoAgentFiles) {
		t.Errorf("empty folder: %v", err)
	}
	if _, err := LoadDir(filepath.Join(dir, "missing")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing folder: %v", err)
	}
	if _, err := Load(filepath.Join(dir, "missing.yaml")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
}

func TestExampleAgentFilesLoad(t *testing.T) {
	specs, err := LoadDir("../../agents.d")
	if err != nil {
		t.Fatal(err)
	}
	if len(specs) == 0 {
		t.Fatal("no example agents")
	}
}
