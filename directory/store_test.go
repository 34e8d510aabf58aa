// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package directory

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

func writeFile(t *testing.T, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "known-agents.json")
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestSaveAndLoadKnownAgents(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "known-agents.json")
	agents := []storedAgent{
		{Name: "Alpha", Card: *card("Alpha", "a", "b"), LastSeen: at(time.Second), Instances: []Instance{{ID: "i1", LastSeen: at(time.Second)}}},
		{Name: "Beta", Card: *card("Beta"), Instances: []Instance{}},
	}
	if err := os.WriteFile(p, []byte("old content"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := saveKnownAgents(p, agents); err != nil {
		t.Fatal(err)
	}
	got, err := loadKnownAgents(p, anyFileBytes)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, agents) {
		t.Errorf("loaded\n%+v\nwant\n%+v", got, agents)
	}
	files, _ := os.ReadDir(dir)
	if len(files) != 1 {
		t.Errorf("folder holds %d files, want only known-agents.json (no temporary file left)", len(files))
	}
	if fi, err := os.Stat(p); err != nil || fi.Mode().Perm() != 0o644 {
		t.Errorf("mode = %v, %v; want 0644", fi.Mode(), err)
	}
	data, _ := os.ReadFile(p)
	if !strings.HasPrefix(string(data), "{\n  \"version\": 1,\n  \"agents\": [") || strings.Contains(string(data), "0001-01-01") {
		t.Errorf("file =\n%s\nwant indented {version, agents} without zero times", data)
	}
	if err := saveKnownAgents(p, nil); err != nil {
		t.Fatal(err)
	}
	if got, err := loadKnownAgents(p, anyFileBytes); err != nil || len(got) != 0 {
		t.Errorf("empty directory loads as %v, %v", got, err)
	}
}

func TestLoadKnownAgentsMissingFileIsFirstBoot(t *testing.T) {
	got, err := loadKnownAgents(filepath.Join(t.TempDir(), "absent.json"), anyFileBytes)
	if err != nil || got != nil {
		t.Fatalf("missing file = %v, %v; want no agents and no error", got, err)
	}
	if _, err := loadKnownAgents(t.TempDir(), anyFileBytes); err == nil || errors.Is(err, ErrInvalidKnownAgents) {
		t.Errorf("a folder as file = %v, want a read error", err)
	}
}

func TestSaveKnownAgentsFailures(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "no", "such", "known-agents.json")
	if err := saveKnownAgents(missing, nil); err == nil || !strings.Contains(err.Error(), missing) {
		t.Errorf("save into a missing folder = %v, want an error naming %s", err, missing)
	}
	dir := t.TempDir()
	target := filepath.Join(dir, "known-agents.json")
	if err := os.Mkdir(target, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(target, "keep"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := saveKnownAgents(target, nil); err == nil || !strings.Contains(err.Error(), "rename") {
		t.Errorf("save over a non-empty folder = %v, want a rename error", err)
	}
	if files, _ := os.ReadDir(dir); len(files) != 1 {
		t.Errorf("a failed save left %d entries in the folder, want the temporary file removed", len(files))
	}
}

func TestLoadKnownAgentsInvalid(t *testing.T) {
	const cardA = `{"name": "A", "description": "", "version": "1", "skills": [], "capabilities": {}, "defaultInputModes": [], "defaultOutputModes": [], "supportedInterfaces": []}`
	tests := []struct {
		name    string
		content string
		want    []string // after `directory: invalid known-agents file "<path>": `
	}{
		{"empty", " \n", []string{"the file is empty"}},
		{"syntax", "{\n  \"version\": 1,,\n}", []string{"line 2, column 16: invalid character ',' looking for beginning of object key string"}},
		{"truncated", `{"version": 1, "agents": [`, []string{"unexpected end of JSON input"}},
		{"array", `[]`, []string{"must be a JSON object, got array"}},
		{"trailing data", "{\"version\": 1, \"agents\": []}\n{}", []string{"line 2, column 1: unexpected data after the JSON object"}},
		{"no version", `{"agents": []}`, []string{"version is missing"}},
		{"other version", `{"version": 2, "agents": []}`, []string{"unsupported version 2, want 1"}},
		{"unknown field", `{"version": 1, "agents": [], "extra": 1}`, []string{`unknown field "extra"`}},
		{"entry not object", `{"version": 1, "agents": [7]}`, []string{"agents[0]: must be a JSON object, got number"}},
		{"bad name", `{"version": 1, "agents": [{"name": "a.b", "card": ` + cardA + `}]}`, []string{`agents[0] "a.b": name: a2a: invalid name: agent name "a.b" must match`}},
		{"duplicate", `{"version": 1, "agents": [{"name": "A", "card": ` + cardA + `}, {"name": "B", "card": {"name": "B"}}, {"name": "a", "card": ` + cardA + `}]}`,
			[]string{`agents[2] "a": duplicate agent name (names are case-insensitive): agents[0] is "A"`}},
		{"no card", `{"version": 1, "agents": [{"name": "A"}]}`, []string{`agents[0] "A": card is missing`}},
		{"card of another agent", `{"version": 1, "agents": [{"name": "B", "card": ` + cardA + `}]}`, []string{`agents[0] "B": card.name "A" is not the agent "B"`}},
		{"card wrong type", `{"version": 1, "agents": [{"name": "A", "card": {"name": 5}}]}`, []string{`agents[0] "A": card: field name: want string, got number`}},
		{"bad skill", `{"version": 1, "agents": [{"name": "A", "card": {"name": "A", "skills": [{"id": "x y"}]}}]}`, []string{`agents[0] "A": card.skills[0]: a2a: invalid name: skill id "x y"`}},
		{"duplicate skill", `{"version": 1, "agents": [{"name": "A", "card": {"name": "A", "skills": [{"id": "x"}, {"id": "x"}]}}]}`, []string{`agents[0] "A": card.skills[1]: duplicate skill id "x" (also skills[0])`}},
		{"bad instance", `{"version": 1, "agents": [{"name": "A", "card": ` + cardA + `, "instances": [{"id": "a.b", "lastSeen": "2025-01-01T00:00:00Z"}]}]}`, []string{`agents[0] "A": instances[0]: a2a: invalid name: instance id "a.b"`}},
		{"duplicate instance", `{"version": 1, "agents": [{"name": "A", "card": ` + cardA + `, "instances": [{"id": "i", "lastSeen": "2025-01-01T00:00:00Z"}, {"id": "i", "lastSeen": "2025-01-01T00:00:00Z"}]}]}`,
			[]string{`agents[0] "A": instances[1]: duplicate instance id "i" (also instances[0])`}},
		{"instance without time", `{"version": 1, "agents": [{"name": "A", "card": ` + cardA + `, "instances": [{"id": "i"}]}]}`, []string{`agents[0] "A": instances[0]: lastSeen is missing`}},
		{"bad time", `{"version": 1, "agents": [{"name": "A", "card": ` + cardA + `, "lastSeen": "yesterday"}]}`, []string{`agents[0] "A": parsing time "yesterday"`}},
		{"unknown entry field", `{"version": 1, "agents": [{"name": "A", "card": ` + cardA + `, "status": "online"}]}`, []string{`agents[0] "A": unknown field "status"`}},
		{"every error reported", `{"version": 1, "agents": [{"name": "1A", "card": {}}, {"name": "B"}]}`, []string{
			`agents[0] "1A": name: a2a: invalid name`,
			`agents[1] "B": card is missing`,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := writeFile(t, tt.content)
			agents, err := loadKnownAgents(p, anyFileBytes)
			if err == nil {
				t.Fatalf("load = %+v, want an error", agents)
			}
			var ke *KnownAgentsError
			if !errors.Is(err, ErrInvalidKnownAgents) || !errors.As(err, &ke) || ke.File != p {
				t.Errorf("error %v is not a *KnownAgentsError naming %s", err, p)
			}
			lines := strings.Split(err.Error(), "\n")
			if len(lines) != len(tt.want) {
				t.Fatalf("got %d errors, want %d:\n%v", len(lines), len(tt.want), err)
			}
			for i, w := range tt.want {
				prefix := `directory: invalid known-agents file "` + p + `": `
				if !strings.HasPrefix(lines[i], prefix+w) {
					t.Errorf("error %d =\n  %s\nwant prefix\n  %s", i, lines[i], prefix+w)
				}
			}
		})
	}
}
