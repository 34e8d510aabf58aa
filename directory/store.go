// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package directory

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/a2abus/a2abus/internal/fileread"
	"github.com/a2abus/a2abus/pkg/a2a"
)

// knownAgentsVersion is the format version written to and accepted from known-agents files.
const knownAgentsVersion = 1

// knownAgentsFile is the JSON document of a known-agents file.
type knownAgentsFile struct {
	Version int           `json:"version"`
	Agents  []storedAgent `json:"agents"`
}

// storedAgent is one agent of a known-agents file.
type storedAgent struct {
	Name      string        `json:"name"`
	Card      a2a.AgentCard `json:"card"`
	LastSeen  time.Time     `json:"lastSeen,omitzero"`
	Instances []Instance    `json:"instances"`
	// InputSchemas are the input schemas declared with the card, by skill id.
	InputSchemas map[string]json.RawMessage `json:"inputSchemas,omitempty"`
}

// loadKnownAgents reads the known-agents file at path. A missing file is a
// first boot (no agents, no error); every problem of a present one is a
// *KnownAgentsError naming the file, the entry and the reason. A file of
// more than maxBytes, or one that is not a regular file, is refused unread
// (fileread's errors).
func loadKnownAgents(path string, maxBytes int64) ([]storedAgent, error) {
	data, err := fileread.Read(path, maxBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("directory: read known-agents file: %w", err)
	}
	return parseKnownAgents(path, data)
}

func parseKnownAgents(file string, data []byte) ([]storedAgent, error) {
	fileErr := func(format string, args ...any) error {
		return &KnownAgentsError{File: file, Index: -1, Reason: fmt.Sprintf(format, args...)}
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, fileErr("the file is empty")
	}
	var doc struct {
		Version *int              `json:"version"`
		Agents  []json.RawMessage `json:"agents"`
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&doc); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			line, col := position(data, int(se.Offset)-1)
			return nil, fileErr("line %d, column %d: %s", line, col, strings.TrimPrefix(se.Error(), "json: "))
		}
		return nil, fileErr("%s (want {\"version\": %d, \"agents\": [...]})", jsonReason(err), knownAgentsVersion)
	}
	if rest := bytes.TrimSpace(data[dec.InputOffset():]); len(rest) > 0 {
		line, col := position(data, len(data)-len(rest))
		return nil, fileErr("line %d, column %d: unexpected data after the JSON object", line, col)
	}
	switch {
	case doc.Version == nil:
		return nil, fileErr("version is missing")
	case *doc.Version != knownAgentsVersion:
		return nil, fileErr("unsupported version %d, want %d", *doc.Version, knownAgentsVersion)
	}
	agents := make([]storedAgent, len(doc.Agents))
	byName := map[string]int{}
	var errs []error
	for i, raw := range doc.Agents {
		a, reason := parseStoredAgent(raw)
		if reason == "" {
			if first, dup := byName[strings.ToLower(a.Name)]; dup {
				reason = fmt.Sprintf("duplicate agent name (names are case-insensitive): agents[%d] is %q", first, agents[first].Name)
			} else {
				byName[strings.ToLower(a.Name)] = i
			}
		}
		if reason != "" {
			errs = append(errs, &KnownAgentsError{File: file, Index: i, Agent: a.Name, Reason: reason})
		}
		agents[i] = a
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return agents, nil
}

// parseStoredAgent decodes and checks one entry; reason is "" when it is valid.
func parseStoredAgent(raw json.RawMessage) (a storedAgent, reason string) {
	var e struct {
		Name         string                     `json:"name"`
		Card         json.RawMessage            `json:"card"`
		LastSeen     time.Time                  `json:"lastSeen"`
		Instances    []Instance                 `json:"instances"`
		InputSchemas map[string]json.RawMessage `json:"inputSchemas"`
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&e); err != nil {
		return storedAgent{Name: peekField(raw, "name")}, jsonReason(err)
	}
	a = storedAgent{Name: e.Name, LastSeen: e.LastSeen, Instances: e.Instances}
	if err := a2a.ValidateAgentName(e.Name); err != nil {
		return a, "name: " + err.Error()
	}
	if len(e.Card) == 0 || string(e.Card) == "null" {
		return a, "card is missing"
	}
	if err := json.Unmarshal(e.Card, &a.Card); err != nil { // a card is the peer's: unknown fields are ignored
		return a, "card: " + jsonReason(err)
	}
	if !a2a.SameAgent(a.Card.Name, e.Name) {
		return a, fmt.Sprintf("card.name %q is not the agent %q", a.Card.Name, e.Name)
	}
	if reason := checkSkills(a.Card.Skills); reason != "" {
		return a, "card." + reason
	}
	if a.InputSchemas, reason = checkInputSchemas(e.InputSchemas, a.Card.Skills); reason != "" {
		return a, reason
	}
	seen := map[string]int{}
	for j, in := range a.Instances {
		if err := a2a.ValidateInstanceID(in.ID); err != nil {
			return a, fmt.Sprintf("instances[%d]: %v", j, err)
		}
		if first, dup := seen[in.ID]; dup {
			return a, fmt.Sprintf("instances[%d]: duplicate instance id %q (also instances[%d])", j, in.ID, first)
		}
		if in.LastSeen.IsZero() {
			return a, fmt.Sprintf("instances[%d]: lastSeen is missing", j)
		}
		seen[in.ID] = j
	}
	return a, ""
}

// checkSkills returns why a card's skills are invalid, or "".
func checkSkills(skills []a2a.AgentSkill) string {
	seen := map[string]int{}
	for i, s := range skills {
		if err := a2a.ValidateSkillID(s.ID); err != nil {
			return fmt.Sprintf("skills[%d]: %v", i, err)
		}
		if first, dup := seen[s.ID]; dup {
			return fmt.Sprintf("skills[%d]: duplicate skill id %q (also skills[%d])", i, s.ID, first)
		}
		seen[s.ID] = i
	}
	return ""
}

// jsonReason turns a decoding error into a readable reason.
func jsonReason(err error) string {
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &te) && te.Field != "":
		return fmt.Sprintf("field %s: want %s, got %s", te.Field, te.Type, te.Value)
	case errors.As(err, &te):
		return "must be a JSON object, got " + te.Value
	case errors.Is(err, io.ErrUnexpectedEOF):
		return "unexpected end of JSON input"
	}
	return strings.TrimPrefix(err.Error(), "json: ")
}

// peekField returns a string field of a JSON object when it can be read, for messages.
func peekField(raw json.RawMessage, field string) string {
	var m map[string]any
	_ = json.Unmarshal(raw, &m) // best effort: the entry is already known to be bad
	s, _ := m[field].(string)
	return s
}

// saveKnownAgents writes agents to path atomically: a temporary file in the
// same folder, fsynced, then renamed over path (and the folder fsynced), so a
// crash leaves either the old file or the new one, never a torn one.
func saveKnownAgents(path string, agents []storedAgent) error {
	data, err := encodeKnownAgents(agents, "  ")
	if err != nil {
		return fmt.Errorf("directory: save %q: encode: %w", path, err)
	}
	return writeAtomic(path, data, 0o644)
}

// encodeKnownAgents is the known-agents document of agents, indented with
// indent ("" for none), ending in a newline.
func encodeKnownAgents(agents []storedAgent, indent string) ([]byte, error) {
	if agents == nil {
		agents = []storedAgent{}
	}
	doc := knownAgentsFile{Version: knownAgentsVersion, Agents: agents}
	data, err := json.Marshal(doc)
	if indent != "" {
		data, err = json.MarshalIndent(doc, "", indent)
	}
	if err != nil {
		return nil, err
	}
	return append(data, '\n'), nil
}

// writeAtomic writes data to path atomically: a temporary file in the
// same folder, fsynced, then renamed over path (and the folder fsynced).
func writeAtomic(path string, data []byte, mode os.FileMode) (err error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	tmp, err := os.CreateTemp(dir, "."+base+".tmp-*")
	if err != nil {
		return fmt.Errorf("directory: save %q: create temporary file: %w", path, err)
	}
	defer func() {
		if err != nil {
			_ = tmp.Close()
			_ = os.Remove(tmp.Name())
		}
	}()
	if _, err := tmp.Write(data); err != nil {
		return fmt.Errorf("directory: save %q: write %q: %w", path, tmp.Name(), err)
	}
	if err := tmp.Chmod(mode); err != nil {
		return fmt.Errorf("directory: save %q: chmod %q: %w", path, tmp.Name(), err)
	}
	if err := tmp.Sync(); err != nil {
		return fmt.Errorf("directory: save %q: fsync %q: %w", path, tmp.Name(), err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("directory: save %q: close %q: %w", path, tmp.Name(), err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("directory: save %q: rename %q: %w", path, tmp.Name(), err)
	}
	syncDir(dir)
	return nil
}

// syncDir makes a rename in dir durable where the platform allows it; the
// file itself is already fsynced, so a failure here is not reported.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		_ = d.Close()
	}
}
