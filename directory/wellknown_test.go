// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package directory

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/a2abus/a2abus/pkg/a2a"
)

func writeWellKnown(t *testing.T, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "well-known-agents.json")
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestLoadWellKnownRepositoryFile(t *testing.T) {
	agents, err := LoadWellKnown(filepath.Join("..", "well-known-agents.json"))
	if err != nil {
		t.Fatal(err)
	}
	skills := map[string][]string{}
	for _, a := range agents {
		if a.Description == "" {
			t.Errorf("%s has no description", a.AgentName)
		}
		for _, s := range a.Skills {
			if s.Name == "" || s.Description == "" {
				t.Errorf("%s skill %s lacks a name or description", a.AgentName, s.ID)
			}
			skills[a.AgentName] = append(skills[a.AgentName], s.ID)
		}
	}
	want := map[string][]string{
		"ResearchAgent": {"research"},
		"SampleAgent":   {"echo", "sleep", "fail", "npv", "delegate", "confirm"},
	}
	if !reflect.DeepEqual(skills, want) {
		t.Errorf("skills = %v, want %v", skills, want)
	}
}

func TestLoadWellKnownValid(t *testing.T) {
	p := writeWellKnown(t, `[
  {"agentName": "A-1", "description": "first", "version": "2.0",
   "skills": [{"id": "s1", "name": "S one", "description": "d", "tags": ["x"], "examples": ["e"]},
              {"id": "s2", "name": "", "description": "no name"}]},
  {"agentName": "b_2", "description": "second", "version": "1", "skills": []}
]`)
	agents, err := LoadWellKnown(p)
	if err != nil {
		t.Fatal(err)
	}
	if len(agents) != 2 || agents[0].AgentName != "A-1" || agents[1].AgentName != "b_2" {
		t.Fatalf("agents = %+v", agents)
	}
	card := agents[0].Card()
	want := &a2a.AgentCard{
		Name: "A-1", Description: "first", Version: "2.0",
		DefaultInputModes: []string{"text/plain"}, DefaultOutputModes: []string{"text/plain"},
		Skills: []a2a.AgentSkill{
			{ID: "s1", Name: "S one", Description: "d", Tags: []string{"x"}, Examples: []string{"e"}},
			{ID: "s2", Name: "s2", Description: "no name", Tags: []string{}},
		},
	}
	if !reflect.DeepEqual(card, want) {
		t.Errorf("Card() =\n%+v\nwant\n%+v", card, want)
	}
	// The card must survive the wire: it is what announcements carry.
	data, err := json.Marshal(card)
	if err != nil {
		t.Fatal(err)
	}
	var back a2a.AgentCard
	if err := json.Unmarshal(data, &back); err != nil || back.Name != "A-1" || len(back.Skills) != 2 {
		t.Errorf("card round trip = %+v, %v", back, err)
	}
	if empty, err := LoadWellKnown(writeWellKnown(t, " [ ] ")); err != nil || len(empty) != 0 {
		t.Errorf("empty array = %v, %v; want no agents and no error", empty, err)
	}
}

func TestLoadWellKnownInvalid(t *testing.T) {
	tests := []struct {
		name    string
		content string
		want    []string // the reasons after `directory: invalid well-known file "<path>": `
	}{
		{"empty file", "  \n", []string{"the file is empty (a file without agents is [])"}},
		{"object", `{"agentName": "A"}`, []string{"line 1, column 1: must be a JSON array of agents"}},
		{"null", "\n null", []string{"line 2, column 2: must be a JSON array of agents"}},
		{"syntax", "[\n  {\"agentName\": \"A\",}\n]", []string{"line 2, column 21: invalid character '}' looking for beginning of object key string"}},
		{"truncated", "[\n  {\"agentName\": \"A\"", []string{"line 2, column 20: unexpected end of JSON input"}},
		{"invalid name", `[{"agentName": "Bad.Name", "skills": []}]`, []string{`entry 0 "Bad.Name" (line 1): agentName: a2a: invalid name: agent name "Bad.Name" must match`}},
		{"missing name", `[{"description": "x"}]`, []string{`entry 0 (line 1): agentName: a2a: invalid name: agent name is empty`}},
		{"duplicate name", "[\n {\"agentName\": \"SampleAgent\"},\n {\"agentName\": \"Other\"},\n {\"agentName\": \"sampleagent\"}\n]",
			[]string{`entry 2 "sampleagent" (line 4): duplicate agent name (names are case-insensitive): entry 0 is "SampleAgent"`}},
		{"skill without id", `[{"agentName": "A", "skills": [{"id": "ok"}, {"name": "x"}]}]`, []string{`entry 0 "A" (line 1): skills[1]: id is required`}},
		{"invalid skill id", `[{"agentName": "A", "skills": [{"id": "a b"}]}]`, []string{`entry 0 "A" (line 1): skills[0]: a2a: invalid name: skill id "a b" must match`}},
		{"duplicate skill", `[{"agentName": "A", "skills": [{"id": "echo"}, {"id": "x"}, {"id": "echo"}]}]`, []string{`entry 0 "A" (line 1): skills[2]: duplicate skill id "echo" (also skills[0])`}},
		{"unknown field", "[\n{\"agentName\": \"A\", \"endpoint\": \"http://x\"}]", []string{`entry 0 "A" (line 2): unknown field "endpoint"`}},
		{"unknown skill field", `[{"agentName": "A", "skills": [{"id": "s", "inputSchema": {}}]}]`, []string{`entry 0 "A" (line 1): unknown field "inputSchema"`}},
		{"wrong type", `[{"agentName": "A", "skills": [{"id": "s", "tags": [1]}]}]`, []string{`entry 0 "A" (line 1): field skills.tags: want string, got number`}},
		{"entry not object", `[{"agentName": "A"}, "B"]`, []string{`entry 1 (line 1): must be a JSON object, got string`}},
		{"every error reported", "[\n {\"agentName\": \"1x\"},\n {\"agentName\": \"B\", \"skills\": [{\"id\": \"\"}]}\n]", []string{
			`entry 0 "1x" (line 2): agentName: a2a: invalid name`,
			`entry 1 "B" (line 3): skills[0]: id is required`,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := writeWellKnown(t, tt.content)
			agents, err := LoadWellKnown(p)
			if err == nil {
				t.Fatalf("LoadWellKnown() = %+v, want an error", agents)
			}
			if !errors.Is(err, ErrInvalidWellKnown) {
				t.Errorf("error %v does not wrap ErrInvalidWellKnown", err)
			}
			var we *WellKnownError
			if !errors.As(err, &we) || we.File != p {
				t.Errorf("error %v is not a *WellKnownError naming %s", err, p)
			}
			lines := strings.Split(err.Error(), "\n")
			if len(lines) != len(tt.want) {
				t.Fatalf("got %d errors, want %d:\n%v", len(lines), len(tt.want), err)
			}
			for i, w := range tt.want {
				prefix := `directory: invalid well-known file "` + p + `": `
				if !strings.HasPrefix(lines[i], prefix+w) {
					t.Errorf("error %d =\n  %s\nwant prefix\n  %s", i, lines[i], prefix+w)
				}
			}
		})
	}
}

func TestLoadWellKnownMissingFile(t *testing.T) {
	_, err := LoadWellKnown(filepath.Join(t.TempDir(), "absent.json"))
	if !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), "absent.json") {
		t.Fatalf("error = %v, want a not-exist error naming the file", err)
	}
}
