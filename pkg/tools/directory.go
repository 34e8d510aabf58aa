// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package tools

import "github.com/a2abus/a2abus/directory"

// DirectoryLister adapts the agent directory to Lister.
type DirectoryLister struct {
	// Directory is the running directory the listing comes from.
	Directory interface {
		List(f directory.Filter) []directory.Entry
	}
}

// closedChan is a channel that is always closed: warm from the start.
var closedChan = func() chan struct{} { c := make(chan struct{}); close(c); return c }()

// Warm is the directory's Warm (a *directory.Directory's: its shared
// listing restored and its first discovery round ended); a directory
// without one is warm from the start.
func (l DirectoryLister) Warm() <-chan struct{} {
	if w, ok := l.Directory.(Warmer); ok {
		return w.Warm()
	}
	return closedChan
}

// ListAgents lists the directory's agents with skill and query as filters.
func (l DirectoryLister) ListAgents(skill, query string) []AgentInfo {
	entries := l.Directory.List(directory.Filter{Skill: skill, Query: query})
	out := make([]AgentInfo, 0, len(entries))
	for _, e := range entries {
		info := AgentInfo{
			Name: e.Name, Description: e.Card.Description, Version: e.Card.Version,
			Skills: make([]SkillInfo, 0, len(e.Card.Skills)), Status: string(e.Status),
			Instances: len(e.Instances), LastSeen: e.LastSeenText(),
		}
		for _, s := range e.Card.Skills {
			info.Skills = append(info.Skills, SkillInfo{ID: s.ID, Name: s.Name, Description: s.Description})
		}
		out = append(out, info)
	}
	return out
}
