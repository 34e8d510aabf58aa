// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

// Package sample is SampleAgent, the always-on reference agent of a2abus:
// echo, sleep, fail, npv, delegate and confirm — the skills that exercise a
// caller's handling of results, progress, cancellation, deadlines, typed
// errors, structured input, nested calls, questions (input-required) and
// contexts.
package sample

import "github.com/a2abus/a2abus/pkg/a2a"

// DefaultName is the agent's name in well-known-agents.json.
const DefaultName = "SampleAgent"

// Version is the version on the card and in every result's metadata.
const Version = "1.0"

// Skill ids.
const (
	SkillEcho     = "echo"
	SkillSleep    = "sleep"
	SkillFail     = "fail"
	SkillNPV      = "npv"
	SkillDelegate = "delegate"
	SkillConfirm  = "confirm"
)

// Card is SampleAgent's card under name; its text agrees with well-known-agents.json.
func Card(name string) a2a.AgentCard {
	return a2a.AgentCard{
		Name:               name,
		Description:        "Always-on reference agent for trying and testing a2abus: echoes, waits, fails on request, computes a net present value, delegates to another agent and asks its caller to confirm.",
		Version:            Version,
		DefaultInputModes:  []string{"text/plain", "application/json"},
		DefaultOutputModes: []string{"text/plain", "application/json"},
		Skills: []a2a.AgentSkill{
			{
				ID: SkillEcho, Name: "Echo",
				Description: "Returns the text of the request unchanged.",
				Tags:        []string{"test"},
				Examples:    []string{"hello"},
			},
			{
				ID: SkillSleep, Name: "Sleep",
				Description: "Sleeps for the number of milliseconds given as text (e.g. \"5000\"), reporting progress, then completes; stops at once when the task is cancelled or its deadline passes.",
				Tags:        []string{"test", "timeout", "cancel"},
				Examples:    []string{"5000"},
			},
			{
				ID: SkillFail, Name: "Fail",
				Description: "Fails with the given text as its error message (code EXECUTION_FAILED), to exercise the caller's error handling.",
				Tags:        []string{"test", "error"},
				Examples:    []string{"bad order id"},
			},
			{
				ID: SkillNPV, Name: "Net present value",
				Description: "Computes the net present value of a series of cash flows at a discount rate. Input JSON: {\"cash_flows\": [-100000, 25000, 35000], \"discount_rate\": 0.12}.",
				Tags:        []string{"finance", "calculation"},
				Examples:    []string{"{\"cash_flows\": [-100000, 25000, 35000, 45000, 55000], \"discount_rate\": 0.12}"},
			},
			{
				ID: SkillDelegate, Name: "Delegate",
				Description: "Invokes another agent's skill and returns its result or error, extending the call chain (cycles and excessive depth are refused). Input JSON: {\"agent\": \"ResearchAgent\", \"skill\": \"research\", \"text\": \"What is KEDA?\", \"input\": {}} (input optional).",
				Tags:        []string{"orchestration"},
				Examples:    []string{"{\"agent\": \"ResearchAgent\", \"skill\": \"research\", \"text\": \"What is KEDA?\"}"},
			},
			{
				ID: SkillConfirm, Name: "Confirm",
				Description: "Asks its caller to confirm the text (options yes and no; the task waits for the answer), then completes saying whether it was confirmed. In a context with earlier tasks, the question quotes the latest of them.",
				Tags:        []string{"test", "input-required", "context"},
				Examples:    []string{"book the meeting room for Friday"},
			},
		},
	}
}
