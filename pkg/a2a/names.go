// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package a2a

import (
	"fmt"
	"strings"
)

// Topology names shared by every transport. Routing keys and queue names are
// built only by the functions below; nothing else concatenates them.
const (
	// DefaultExchange is the durable topic exchange all messages go through.
	DefaultExchange = "a2a"
	// RoutingKeyAnnounce carries agent cards (announcements and deregistrations).
	RoutingKeyAnnounce = "discovery.announce"
	// RoutingKeyDiscoveryQuery asks every running agent to announce at once.
	RoutingKeyDiscoveryQuery = "discovery.query"

	prefixTask     = "agent.task."
	prefixResponse = "agent.response."
	prefixCancel   = "agent.cancel."
	prefixEvent    = "agent.event."
	prefixInstance = "a2a.instance."

	prefixConverseControl = "converse.control."
)

// ConverseControlRoutingKey is the routing key of the controls of the
// orchestrated conversation id (pkg/converse, which validates id):
// converse.control.<id>.
func ConverseControlRoutingKey(id string) string { return prefixConverseControl + id }

// DeadLetterExchange is the exchange that receives exchange's rejected or
// exhausted messages: "<exchange>.dlx" (a2a.dlx for the default exchange).
func DeadLetterExchange(exchange string) string { return exchange + ".dlx" }

// DeadLetterQueue is the durable queue bound to DeadLetterExchange(exchange):
// "<exchange>.dead" (a2a.dead for the default exchange).
func DeadLetterQueue(exchange string) string { return exchange + ".dead" }

// ValidateAgentName reports whether name is a legal agent name: a letter, then
// up to 63 letters, digits, '_' or '-'. No dot or wildcard can reach a routing key.
func ValidateAgentName(name string) error {
	if name == "" {
		return fmt.Errorf("%w: agent name is empty", ErrInvalidName)
	}
	if !agentNamePattern.match(name) {
		return fmt.Errorf("%w: agent name %q must match %s", ErrInvalidName, name, agentNamePattern)
	}
	return nil
}

// ValidateTaskID reports whether id is a legal task id (letters, digits, '_' and
// '-', at most 128): safe inside a memory key and a queue header.
func ValidateTaskID(id string) error { return matchID("task id", id, taskIDPattern) }

// ValidateSessionID reports whether id is a legal session id (letters, digits,
// '_', '.', ':' and '-', at most 128, no ".."), so memory keys cannot collide.
func ValidateSessionID(id string) error {
	if strings.Contains(id, "..") {
		return fmt.Errorf("%w: session id %q must not contain \"..\"", ErrInvalidName, id)
	}
	return matchID("session id", id, sessionIDPattern)
}

// ValidateSkillID reports whether id is a legal skill id.
func ValidateSkillID(id string) error { return matchID("skill id", id, skillIDPattern) }

func matchID(what, id string, re *idPattern) error {
	if id == "" {
		return fmt.Errorf("%w: %s is empty", ErrInvalidName, what)
	}
	if !re.match(id) {
		return fmt.Errorf("%w: %s %q must match %s", ErrInvalidName, what, id, re)
	}
	return nil
}

// ValidateInstanceID reports whether id may name a per-instance queue.
func ValidateInstanceID(id string) error {
	if !instanceIDPattern.match(id) {
		return fmt.Errorf("%w: instance id %q must match %s", ErrInvalidName, id, instanceIDPattern)
	}
	return nil
}

// SameAgent reports whether two agent names denote the same agent (look-ups are case-insensitive).
func SameAgent(a, b string) bool { return strings.EqualFold(a, b) }

// TaskRoutingKey is the routing key (and queue name) of agent's task queue: agent.task.<agent>.
func TaskRoutingKey(agent string) (string, error) {
	if err := ValidateAgentName(agent); err != nil {
		return "", err
	}
	return prefixTask + agent, nil
}

// ResponseRoutingKey is the routing key (and queue name) of caller's response queue: agent.response.<caller>.
func ResponseRoutingKey(caller string) (string, error) {
	if err := ValidateAgentName(caller); err != nil {
		return "", err
	}
	return prefixResponse + caller, nil
}

// CancelRoutingKey is the routing key that reaches every running instance of agent: agent.cancel.<agent>.
func CancelRoutingKey(agent string) (string, error) {
	if err := ValidateAgentName(agent); err != nil {
		return "", err
	}
	return prefixCancel + agent, nil
}

// EventRoutingKey is the routing key on which a caller's replicas tell each
// other about the responses one of them handled: agent.event.<caller>.
func EventRoutingKey(caller string) (string, error) {
	if err := ValidateAgentName(caller); err != nil {
		return "", err
	}
	return prefixEvent + caller, nil
}

// InstanceQueue is the name of the exclusive per-instance queue of one running
// process of owner (an agent or a directory): a2a.instance.<owner>.<instanceID>.
func InstanceQueue(owner, instanceID string) (string, error) {
	if err := ValidateAgentName(owner); err != nil {
		return "", err
	}
	if err := ValidateInstanceID(instanceID); err != nil {
		return "", err
	}
	return prefixInstance + owner + "." + instanceID, nil
}

// AgentFromTaskKey returns the agent name of a task routing key, or false.
func AgentFromTaskKey(key string) (string, bool) { return agentFromKey(key, prefixTask) }

// CallerFromResponseKey returns the caller name of a response routing key, or false.
func CallerFromResponseKey(key string) (string, bool) { return agentFromKey(key, prefixResponse) }

func agentFromKey(key, prefix string) (string, bool) {
	name, ok := strings.CutPrefix(key, prefix)
	if !ok || ValidateAgentName(name) != nil {
		return "", false
	}
	return name, true
}
