// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package main

import (
	"github.com/a2abus/a2abus/pkg/llm/openai"
)

// The optional parts a2abus links, which the agent mains and SDK programs
// do not: the model client (the Primary, the Orchestrator's router, LLM
// agents, chat, ResearchAgent with a model).
func init() {
	openai.Register()
}
