// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

// Package research is ResearchAgent, the ephemeral one-shot reference agent
// of a2abus: its research skill ranks the passages of a folder of Markdown
// and text files — or of the web pages a metasearch endpoint finds
// (RegisterWeb, the backend in package research/web) — against a question with BM25 and answers with the best
// ones and where they come from; with a model (RegisterWithModel), with an
// answer written from them that cites them by number. It runs as a KEDA ScaledJob: one task, then exit.
package research

import "github.com/a2abus/a2abus/pkg/a2a"

// DefaultName is the agent's name in well-known-agents.json.
const DefaultName = "ResearchAgent"

// Version is the version on the card and in every result's metadata.
const Version = "1.0"

// SkillResearch is the id of the research skill.
const SkillResearch = "research"

// Card is ResearchAgent's card; its text agrees with well-known-agents.json.
func Card() a2a.AgentCard {
	return a2a.AgentCard{
		Name:               DefaultName,
		Description:        "On-demand research agent, started per task by a KEDA ScaledJob: it searches the web (or, offline, a folder of documents), fetches pages and synthesises a concise, sourced answer, using an LLM when one is configured. Not running between tasks; a task waits on its queue until the job starts.",
		Version:            Version,
		DefaultInputModes:  []string{"text/plain"},
		DefaultOutputModes: []string{"text/plain"},
		Skills: []a2a.AgentSkill{{
			ID: SkillResearch, Name: "Research",
			Description: "Research a topic and synthesise a concise answer with the sources used. Input: the question as text.",
			Tags:        []string{"research", "summary"},
			Examples:    []string{"What changed between RabbitMQ classic and quorum queues?"},
		}},
	}
}
