// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package directory

import (
	"encoding/json"
	"time"

	"github.com/a2abus/a2abus/pkg/a2a"
)

// Status of a listed agent.
type Status string

// The statuses of an agent.
const (
	// StatusOnline: at least one instance announced within StaleAfter and has not deregistered.
	StatusOnline Status = "online"
	// StatusOffline: no live instance.
	StatusOffline Status = "offline"
	// StatusWellKnown: a well-known agent that has not announced since the directory started.
	StatusWellKnown Status = "well-known"
)

// NotSeenText is the lastSeen text of a well-known agent that has not announced this session.
const NotSeenText = "well-known (not yet seen this session)"

// Instance is one running process of an agent.
type Instance struct {
	ID       string    `json:"id"`
	LastSeen time.Time `json:"lastSeen"` // when the directory last received its announcement
}

// Entry is one agent as the directory knows it. Entries are snapshots that
// share their card's slices with the directory: treat them as read-only.
type Entry struct {
	Name      string        `json:"name"` // canonical spelling
	Card      a2a.AgentCard `json:"card"` // the newest card; Card.Name is the canonical spelling
	Status    Status        `json:"status"`
	WellKnown bool          `json:"wellKnown"`
	Instances []Instance    `json:"instances"` // live instances, sorted by id
	LastSeen  time.Time     `json:"lastSeen"`  // zero: never seen (this session, for a well-known agent)
	// InputSchemas maps skill ids to the JSON Schema of their structured input, when declared.
	InputSchemas map[string]json.RawMessage `json:"inputSchemas,omitempty"`
}

// LastSeenText is NotSeenText for a well-known agent not seen this session,
// "never" for another agent never seen, else LastSeen in RFC 3339.
func (e Entry) LastSeenText() string {
	switch {
	case e.Status == StatusWellKnown:
		return NotSeenText
	case e.LastSeen.IsZero():
		return "never"
	}
	return e.LastSeen.UTC().Format(time.RFC3339)
}

// HasSkill reports whether the agent's card lists the skill id (exact match).
func (e Entry) HasSkill(id string) bool {
	for _, s := range e.Card.Skills {
		if s.ID == id {
			return true
		}
	}
	return false
}

// SkillIDs returns the ids of the card's skills in card order.
func (e Entry) SkillIDs() []string {
	ids := make([]string, len(e.Card.Skills))
	for i, s := range e.Card.Skills {
		ids[i] = s.ID
	}
	return ids
}

// Filter selects entries in List; the zero Filter selects all.
type Filter struct {
	// Skill keeps agents whose card lists this skill id (exact match).
	Skill string
	// Query keeps agents whose name, description, or a skill's id, name or
	// description contains it, ignoring case.
	Query string
}
