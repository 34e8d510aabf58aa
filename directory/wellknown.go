// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package directory

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/a2abus/a2abus/internal/fileread"
	"github.com/a2abus/a2abus/pkg/a2a"
)

// ErrInvalidWellKnown is wrapped by every error about the content of a well-known file.
var ErrInvalidWellKnown = errors.New("directory: invalid well-known file")

// WellKnownAgent is one entry of a well-known-agents.json file: an agent
// that is always listed, whether or not it has announced itself.
type WellKnownAgent struct {
	AgentName   string           `json:"agentName"` // canonical spelling; look-ups ignore case
	Description string           `json:"description"`
	Version     string           `json:"version"`
	Skills      []WellKnownSkill `json:"skills"`
	// InputSchemas maps skill ids to the JSON Schema of their structured
	// input, as agents announce them; optional.
	InputSchemas map[string]json.RawMessage `json:"inputSchemas,omitempty"`
	// PublicKey is the agent's ed25519 public key, the standard base64 of its
	// 32 bytes (as `a2abus keys generate` prints it) or a PEM "PUBLIC KEY"
	// block; optional. A directory (TrustPinned, TrustTOFU) refuses cards
	// and deregistrations for this name not signed by it.
	PublicKey string `json:"publicKey,omitempty"`
	// URL, when set, makes the entry a remote A2A agent: the URL of its
	// agent card (http or https), which `a2abus serve --remote AGENTNAME`
	// fetches to bridge the agent onto the bus (docs/a2a-remote.md).
	URL string `json:"url,omitempty"`
	// Auth is how that bridge authenticates to the remote agent (files
	// only: this file holds no secret); only with URL.
	Auth *WellKnownAuth `json:"auth,omitempty"`
	// WaitTimeout is how long a task for this agent may wait in its queue
	// to be taken (a Go duration: "10m"; "0s": no wait bound apart from the
	// call's timeout); empty: the directory's default (wait.go).
	WaitTimeout string `json:"waitTimeout,omitempty"`
}

// WellKnownSkill is one skill of a WellKnownAgent.
type WellKnownSkill struct {
	ID          string   `json:"id"`
	Name        string   `json:"name"`
	Description string   `json:"description"`
	Tags        []string `json:"tags,omitempty"`
	Examples    []string `json:"examples,omitempty"`
}

// WellKnownError says what is wrong in a well-known file. It wraps ErrInvalidWellKnown.
type WellKnownError struct {
	File   string // the file's path
	Index  int    // the entry, or -1 when the error is not about one entry
	Agent  string // the entry's agentName, "" when unknown
	Line   int    // 1-based position in the file, 0 when unknown
	Column int    // set with Line for errors not about one entry
	Reason string // what is wrong
}

// Error names the file, the entry (index, name and line) and the reason.
func (e *WellKnownError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%v %q: ", ErrInvalidWellKnown, e.File)
	if e.Index >= 0 {
		fmt.Fprintf(&b, "entry %d", e.Index)
		if e.Agent != "" {
			fmt.Fprintf(&b, " %q", e.Agent)
		}
		if e.Line > 0 {
			fmt.Fprintf(&b, " (line %d)", e.Line)
		}
		b.WriteString(": ")
	} else if e.Line > 0 {
		fmt.Fprintf(&b, "line %d, column %d: ", e.Line, e.Column)
	}
	b.WriteString(e.Reason)
	return b.String()
}

// Unwrap returns ErrInvalidWellKnown.
func (e *WellKnownError) Unwrap() error { return ErrInvalidWellKnown }

// LoadWellKnown reads the JSON array of agents at path. Malformed JSON,
// unknown fields, invalid or duplicate (case-insensitive) agent names, and
// missing, invalid or duplicate skill ids are reported, all of them, as
// *WellKnownError. A file of more than MaxWellKnownFileBytes, or one that is
// not a regular file, is refused unread (fileread's errors).
func LoadWellKnown(path string) ([]WellKnownAgent, error) {
	data, err := fileread.Read(path, MaxWellKnownFileBytes)
	if err != nil {
		return nil, fmt.Errorf("directory: read well-known file: %w", err)
	}
	return parseWellKnown(path, data)
}

// ParseWellKnown is LoadWellKnown for the content of file, already read.
func ParseWellKnown(file string, data []byte) ([]WellKnownAgent, error) {
	return parseWellKnown(file, data)
}

func parseWellKnown(file string, data []byte) ([]WellKnownAgent, error) {
	fileErr := func(off int, reason string) error {
		line, col := position(data, off)
		return &WellKnownError{File: file, Index: -1, Line: line, Column: col, Reason: reason}
	}
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) == 0 {
		return nil, fileErr(-1, "the file is empty (a file without agents is [])")
	}
	var raws []json.RawMessage
	err := json.Unmarshal(data, &raws)
	if se := (*json.SyntaxError)(nil); errors.As(err, &se) {
		off := int(se.Offset) // just past the offending byte, or the end of the input
		if !strings.Contains(se.Error(), "end of JSON input") {
			off--
		}
		return nil, fileErr(off, strings.TrimPrefix(se.Error(), "json: "))
	}
	if err != nil || trimmed[0] != '[' {
		return nil, fileErr(len(data)-len(bytes.TrimLeft(data, " \t\r\n")), "must be a JSON array of agents")
	}
	starts := entryOffsets(data)
	agents := make([]WellKnownAgent, len(raws))
	var errs []error
	byName := map[string]int{}
	for i, raw := range raws {
		line, _ := position(data, starts[i])
		entryErr := func(name, format string, args ...any) {
			errs = append(errs, &WellKnownError{File: file, Index: i, Agent: name, Line: line, Reason: fmt.Sprintf(format, args...)})
		}
		if err := decodeStrict(raw, &agents[i]); err != nil {
			entryErr(peekName(raw), "%s", err)
			continue
		}
		a := agents[i]
		if err := a2a.ValidateAgentName(a.AgentName); err != nil {
			entryErr(a.AgentName, "agentName: %v", err)
		} else if first, dup := byName[strings.ToLower(a.AgentName)]; dup {
			entryErr(a.AgentName, "duplicate agent name (names are case-insensitive): entry %d is %q", first, agents[first].AgentName)
		} else {
			byName[strings.ToLower(a.AgentName)] = i
		}
		seen := map[string]int{}
		for j, s := range a.Skills {
			switch first, dup := seen[s.ID]; {
			case s.ID == "":
				entryErr(a.AgentName, "skills[%d]: id is required", j)
			case dup:
				entryErr(a.AgentName, "skills[%d]: duplicate skill id %q (also skills[%d])", j, s.ID, first)
			default:
				if err := a2a.ValidateSkillID(s.ID); err != nil {
					entryErr(a.AgentName, "skills[%d]: %v", j, err)
				}
				seen[s.ID] = j
			}
		}
		if a.PublicKey != "" {
			if _, err := a2a.ParsePublicKey(a.PublicKey); err != nil {
				entryErr(a.AgentName, "publicKey: %v", err)
			}
		}
		if reason := a.validateWait(); reason != "" {
			entryErr(a.AgentName, "%s", reason)
		}
		for _, reason := range a.validateRemote() {
			entryErr(a.AgentName, "%s", reason)
		}
		valid, bad := compileSchemas(a.InputSchemas, a.Card().Skills)
		for _, id := range slices.Sorted(maps.Keys(bad)) {
			entryErr(a.AgentName, "%s", bad[id])
		}
		agents[i].InputSchemas = valid
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return agents, nil
}

// decodeStrict decodes one entry, rejecting unknown fields, into a readable error.
func decodeStrict(raw json.RawMessage, a *WellKnownAgent) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	err := dec.Decode(a)
	var te *json.UnmarshalTypeError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &te) && te.Field != "":
		return fmt.Errorf("field %s: want %s, got %s", te.Field, te.Type, te.Value)
	case errors.As(err, &te):
		return fmt.Errorf("must be a JSON object, got %s", te.Value)
	default:
		return errors.New(strings.TrimPrefix(err.Error(), "json: "))
	}
}

// peekName returns an entry's agentName when it can be read, for messages.
func peekName(raw json.RawMessage) string {
	var n struct {
		AgentName string `json:"agentName"`
	}
	_ = json.Unmarshal(raw, &n) // best effort: the entry is already known to be bad
	return n.AgentName
}

// entryOffsets returns the byte offset where each element of the (valid) JSON array data starts.
func entryOffsets(data []byte) []int {
	dec := json.NewDecoder(bytes.NewReader(data))
	if _, err := dec.Token(); err != nil {
		return nil
	}
	var out []int
	for dec.More() {
		off := int(dec.InputOffset())
		for off < len(data) && slices.Contains([]byte(" \t\r\n,"), data[off]) {
			off++
		}
		out = append(out, off)
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			break
		}
	}
	return out
}

// position turns a byte offset into a 1-based line and column; (0, 0) for a negative offset.
func position(data []byte, off int) (line, col int) {
	if off < 0 {
		return 0, 0
	}
	off = min(off, len(data))
	before := data[:off]
	line = bytes.Count(before, []byte("\n")) + 1
	col = off - bytes.LastIndexByte(before, '\n')
	return line, col
}

// Card converts the entry to an A2A agent card. A skill without a name is
// named by its id; the modes are text/plain, what every a2abus task carries.
func (w WellKnownAgent) Card() *a2a.AgentCard {
	skills := make([]a2a.AgentSkill, len(w.Skills))
	for i, s := range w.Skills {
		name := s.Name
		if name == "" {
			name = s.ID
		}
		tags := slices.Clone(s.Tags)
		if tags == nil {
			tags = []string{} // tags is a required field of an A2A skill
		}
		skills[i] = a2a.AgentSkill{
			ID:          s.ID,
			Name:        name,
			Description: s.Description,
			Tags:        tags,
			Examples:    slices.Clone(s.Examples),
		}
	}
	return &a2a.AgentCard{
		Name:               w.AgentName,
		Description:        w.Description,
		Version:            w.Version,
		Skills:             skills,
		DefaultInputModes:  []string{"text/plain"},
		DefaultOutputModes: []string{"text/plain"},
	}
}
