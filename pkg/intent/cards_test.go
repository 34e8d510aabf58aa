// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package intent_test

import (
	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/intent"
)

// testCards are the cards of a small mesh: an analyst with two finance
// skills, a writer, a one-skill research agent and a translator.
func testCards() []a2a.AgentCard {
	return []a2a.AgentCard{
		{Name: "Analyst", Description: "Financial analysis.", Version: "1", Skills: []a2a.AgentSkill{
			{ID: "npv", Name: "Net present value", Description: "Computes the net present value of a series of cash flows at a discount rate.", Tags: []string{"finance", "npv"}},
			{ID: "projection", Name: "Financial projection", Description: "Projects revenue, costs and cash flows over the coming years from assumptions.", Tags: []string{"finance", "forecast"}},
		}},
		{Name: "Writer", Description: "Writes documents.", Version: "1", Skills: []a2a.AgentSkill{
			{ID: "document", Name: "Write document", Description: "Writes a report, memo or letter from notes.", Tags: []string{"writing", "report"}},
		}},
		{Name: "ResearchAgent", Description: "Researches a topic and answers with a sourced summary.", Version: "1", Skills: []a2a.AgentSkill{
			{ID: "research", Name: "Research", Description: "Research a topic and synthesise a concise answer with the sources used.", Tags: []string{"research", "summary"}},
		}},
		{Name: "Translator", Description: "Translates.", Version: "1", Skills: []a2a.AgentSkill{
			{ID: "translate", Name: "Translate", Description: "Translates text between languages.", Tags: []string{"translation", "language"}},
		}},
	}
}

// testCandidates are testCards as candidates, in card order.
func testCandidates() []intent.Candidate {
	var out []intent.Candidate
	for _, c := range testCards() {
		for _, s := range c.Skills {
			out = append(out, intent.Candidate{Agent: c.Name, Skill: s.ID, Name: s.Name, Description: s.Description, Tags: s.Tags,
				AgentDescription: c.Description, SingleSkill: len(c.Skills) == 1})
		}
	}
	return out
}
