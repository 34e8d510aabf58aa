// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package main

import (
	"github.com/a2abus/a2abus/internal/agents/research/web"
	"github.com/a2abus/a2abus/pkg/llm/openai"
	"github.com/a2abus/a2abus/pkg/ops"
	"github.com/a2abus/a2abus/pkg/ops/otlp"
	"github.com/a2abus/a2abus/pkg/schema/jsonschema"
)

// The optional parts a2abus links, which the agent mains and SDK programs
// do not (docs/architecture.md#optional-parts): the model client (the
// Primary, the Orchestrator's router, LLM agents, chat, ResearchAgent with
// a model), the OTLP trace exporters, ResearchAgent's web backend and the
// JSON Schema validator (skills' input schemas, the caller's and the
// directory's checks, tool arguments). It also records the stamped version
// for a2abus_build_info.
func init() {
	openai.Register()
	otlp.Register()
	web.Register()
	jsonschema.Register()
	ops.SetBuild(version, commit)
}
