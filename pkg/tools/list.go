// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package tools

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/a2abus/a2abus/pkg/a2a"
)

// Statuses of an AgentInfo.
const (
	// StatusOnline: the agent has announced itself recently.
	StatusOnline = "online"
	// StatusOffline: the agent announced itself once but has been silent since.
	StatusOffline = "offline"
	// StatusWellKnown: the agent is listed statically and started on demand; it can always be invoked.
	StatusWellKnown = "well-known"
)

// Bounds of list_known_agents: a page holds at most MaxListLimit agents,
// each with at most MaxListedSkills skills and descriptions of at most
// MaxListedText characters, so one call cannot flood a model's context.
const (
	// DefaultListLimit is the page size when the call gives no limit.
	DefaultListLimit = 20
	// MaxListLimit is the largest limit a call may ask for.
	MaxListLimit = 100
	// MaxListedSkills is how many skills of one agent are listed; the rest are counted in moreSkills.
	MaxListedSkills = 10
	// MaxListedText bounds, in characters, the agent's and each skill's description (longer ones end with "…").
	MaxListedText = 300
)

// Further bounds of list_known_agents' arguments and shown fields.
const (
	maxQueryLen   = 200 // the query argument
	maxCursorLen  = 200 // the cursor argument
	maxShortText  = 100 // a skill's name, an agent's version
	cursorPrefix  = "after:"
	cursorExplain = "pass the nextCursor of the previous result unchanged, or omit it for the first page"
)

// AgentInfo is one agent as list_known_agents shows it.
type AgentInfo struct {
	Name        string      `json:"name"`
	Description string      `json:"description"`
	Version     string      `json:"version"`
	Skills      []SkillInfo `json:"skills"`
	// MoreSkills counts the skills not listed (past MaxListedSkills); absent when all are.
	MoreSkills int `json:"moreSkills,omitempty"`
	// Status is StatusOnline, StatusOffline or StatusWellKnown.
	Status string `json:"status"`
	// Instances is how many instances are running now.
	Instances int `json:"instances"`
	// LastSeen says when the agent last announced itself, as text.
	LastSeen string `json:"lastSeen"`
}

// SkillInfo is one skill of an AgentInfo; ID is what invoke_agent's skill takes.
type SkillInfo struct {
	ID          string `json:"id"`
	Name        string `json:"name"`
	Description string `json:"description"`
}

// AgentList is list_known_agents' result: one page of the matching agents,
// sorted by name (ignoring case).
type AgentList struct {
	Agents []AgentInfo `json:"agents"`
	// Total is how many agents match the filters, on all pages.
	Total int `json:"total"`
	// NextCursor, passed back as cursor, gives the next page; absent on the last page.
	NextCursor string `json:"nextCursor,omitempty"`
	// Warming is true when the listing is still filling in after the
	// process started (the running agents have not all answered yet):
	// Note says so, for the model. Absent otherwise.
	Warming bool   `json:"warming,omitempty"`
	Note    string `json:"note,omitempty"`
}

// WarmingNote is AgentList.Note while the listing is warming up.
const WarmingNote = "the agent directory is still warming up (it started a moment ago and the running agents have not all " +
	"answered yet): agents may be missing, or shown as not yet seen; list again in a few seconds"

var listKnownAgentsDef = definition{
	name:  "list_known_agents",
	needs: []string{"Agents"},
	description: fmt.Sprintf("List the agents you can invoke with invoke_agent: name, description, version, skills (pass a "+
		"skill's id to invoke_agent), status (online; offline: not seen lately; well-known: started on demand, "+
		"always invocable), running instances and when each was last seen. The result is one page "+
		"{agents, total, nextCursor}: pass nextCursor as cursor for the next page (it is absent on the last one). "+
		"At most %d skills are shown per agent (moreSkills counts the others; filter by skill to find one) and "+
		"descriptions are cut at %d characters. Right after start the listing may still be warming up "+
		"(warming: true, with a note): list again in a few seconds.", MaxListedSkills, MaxListedText),
	params: []param{
		{name: "skill", hint: skillIDHint, schema: map[string]any{
			"type": "string", "pattern": skillIDPattern,
			"description": "Only agents offering the skill with this id.",
		}},
		{name: "query", schema: map[string]any{
			"type": "string", "maxLength": maxQueryLen,
			"description": "Only agents whose name or description contains this text (case-insensitive).",
		}},
		{name: "limit", schema: map[string]any{
			"type": "integer", "minimum": 1, "maximum": MaxListLimit,
			"description": fmt.Sprintf("How many agents per page, 1 to %d; default %d.", MaxListLimit, DefaultListLimit),
		}},
		{name: "cursor", schema: map[string]any{
			"type": "string", "maxLength": maxCursorLen,
			"description": "Where the page starts: the nextCursor of the previous result; omit it for the first page.",
		}},
	},
}

// listArgs are list_known_agents' arguments.
type listArgs struct {
	Skill string `json:"skill"`
	Query string `json:"query"`
	// Limit is a float: JSON Schema counts 20.0 and 2e1 as integers.
	Limit  *float64 `json:"limit"`
	Cursor string   `json:"cursor"`
}

// listKnownAgents returns one page of the matching agents as an AgentList.
func (s *Set) listKnownAgents(ctx context.Context, raw json.RawMessage) (any, error) {
	var args listArgs
	if err := decodeArgs("list_known_agents", raw, &args); err != nil {
		return nil, err
	}
	after, err := decodeCursor(args.Cursor)
	if err != nil {
		return nil, err
	}
	limit := DefaultListLimit
	if args.Limit != nil {
		limit = int(*args.Limit)
	}
	warming := !s.warm(ctx)
	agents := slices.Clone(s.deps.Agents.ListAgents(args.Skill, args.Query))
	if s.allowed != nil { // only the agents invoke_agent may call
		agents = slices.DeleteFunc(agents, func(a AgentInfo) bool { return !s.allowed[strings.ToLower(a.Name)] })
	}
	slices.SortStableFunc(agents, func(a, b AgentInfo) int { return strings.Compare(strings.ToLower(a.Name), strings.ToLower(b.Name)) })
	start := 0
	if after != "" {
		start, _ = slices.BinarySearchFunc(agents, after, func(a AgentInfo, key string) int {
			if c := strings.Compare(strings.ToLower(a.Name), key); c != 0 {
				return c
			}
			return -1 // the cursor's own agent comes before the page
		})
	}
	end := min(start+limit, len(agents))
	out := AgentList{Agents: make([]AgentInfo, 0, end-start), Total: len(agents)}
	for _, a := range agents[start:end] {
		out.Agents = append(out.Agents, bounded(a, args.Skill))
	}
	if end < len(agents) {
		out.NextCursor = encodeCursor(agents[end-1].Name)
	}
	if warming {
		out.Warming, out.Note = true, WarmingNote
	}
	return out, nil
}

// warm reports whether Agents is warm (or no Warmer), waiting for it up to
// Deps.WarmWait on the Set's first call that finds it cold (or until ctx ends).
func (s *Set) warm(ctx context.Context) bool {
	w, ok := s.deps.Agents.(Warmer)
	if !ok {
		return true
	}
	ready := w.Warm()
	select {
	case <-ready:
		return true
	default:
	}
	if s.deps.WarmWait < 0 || s.waited.Load() {
		return false
	}
	timer := time.NewTimer(s.deps.WarmWait)
	defer timer.Stop()
	select {
	case <-ready:
		return true
	case <-timer.C:
		s.waited.Store(true)
	case <-ctx.Done():
	}
	return false
}

// bounded returns a with its texts cut to the listing's bounds and at most
// MaxListedSkills skills, always including the skill filtered on.
func bounded(a AgentInfo, skill string) AgentInfo {
	a.Description = truncate(a.Description, MaxListedText)
	a.Version = truncate(a.Version, maxShortText)
	all := a.Skills
	a.Skills = make([]SkillInfo, 0, min(len(all), MaxListedSkills+1))
	for i, sk := range all {
		if i >= MaxListedSkills && sk.ID != skill {
			continue
		}
		a.Skills = append(a.Skills, SkillInfo{ID: sk.ID, Name: truncate(sk.Name, maxShortText), Description: truncate(sk.Description, MaxListedText)})
	}
	a.MoreSkills = len(all) - len(a.Skills)
	return a
}

// truncate cuts s to at most n characters, the last being "…" when it was cut.
func truncate(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	i, count := 0, 0
	for i = range s {
		if count == n-1 {
			break
		}
		count++
	}
	return s[:i] + "…"
}

// encodeCursor is the opaque cursor of the page after the agent name.
func encodeCursor(name string) string {
	return base64.RawURLEncoding.EncodeToString([]byte(cursorPrefix + strings.ToLower(name)))
}

// decodeCursor returns the lower-case agent name a cursor starts after, ""
// for none; a cursor this tool did not make is an *ArgumentError.
func decodeCursor(cursor string) (string, error) {
	if cursor == "" {
		return "", nil
	}
	raw, err := base64.RawURLEncoding.DecodeString(cursor)
	name, ok := strings.CutPrefix(string(raw), cursorPrefix)
	if err != nil || !ok || a2a.ValidateAgentName(name) != nil || name != strings.ToLower(name) {
		return "", &ArgumentError{Tool: listKnownAgentsDef.name, Path: "cursor",
			Message: fmt.Sprintf("argument \"cursor\": %q is not a cursor of list_known_agents; %s", cursor, cursorExplain)}
	}
	return name, nil
}
