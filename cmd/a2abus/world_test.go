// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/a2abus/a2abus/internal/testworld"
	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/agent"
)

// allowAll is a policy.rules that lets every caller call every agent, for
// the tests that are not about the policy (policy.default stays deny).
const allowAll = `[{"caller":"*","allow":["*"]}]`

// useWorld points the commands at w through A2ABUS_* variables (its bus,
// exchange, Redis and key prefix) and sets the others more names
// (CALLER_NAME, LOG_LEVEL, DIRECTORY_WELL_KNOWN_FILE, …), each without
// the A2ABUS_ prefix. Unless more sets POLICY_RULES, every call is allowed
// (allowAll).
func useWorld(t *testing.T, w *testworld.World, more map[string]string) {
	t.Helper()
	if _, set := more["POLICY_RULES"]; !set {
		t.Setenv("A2ABUS_POLICY_RULES", allowAll)
	}
	for k, v := range map[string]string{"BUS_URL": w.AMQPURL, "BUS_EXCHANGE": w.Exchange, "REDIS_URL": w.RedisURL, "REDIS_KEY_PREFIX": w.KeyPrefix} {
		t.Setenv("A2ABUS_"+k, v)
	}
	for k, v := range more {
		t.Setenv("A2ABUS_"+k, v)
	}
}

// wellKnownFile writes a well-known file of one agent, name, with the
// skills of the given ids, and returns its path.
func wellKnownFile(t *testing.T, name string, skills ...string) string {
	t.Helper()
	type skill struct {
		ID          string `json:"id"`
		Name        string `json:"name"`
		Description string `json:"description"`
	}
	card := struct {
		AgentName   string  `json:"agentName"`
		Description string  `json:"description"`
		Version     string  `json:"version"`
		Skills      []skill `json:"skills"`
	}{AgentName: name, Description: "d", Version: "1"}
	for _, id := range skills {
		card.Skills = append(card.Skills, skill{ID: id, Name: id, Description: "d"})
	}
	data, err := json.Marshal([]any{card})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "known.json")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// startAgent runs an agent named name on w's bus with a handler per skill.
func startAgent(t *testing.T, w *testworld.World, name string, skills map[string]agent.Handler) {
	t.Helper()
	a, err := agent.New(agent.Options{Card: a2a.AgentCard{Name: name}, Bus: w.Connect(t)})
	if err != nil {
		t.Fatal(err)
	}
	for skill, h := range skills {
		if err := a.Handle(skill, h); err != nil {
			t.Fatal(err)
		}
	}
	testworld.Start(t, a)
}
