// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package config

import (
	"fmt"
	"net/url"
	"slices"
	"strings"

	"github.com/a2abus/a2abus/bus"
)

// IdentityConfig says how a receiver learns who sent a message: from the
// broker user that published it (AMQP user_id, validated by RabbitMQ), mapped
// to agent names, or — on a shared user — from the message body.
type IdentityConfig struct {
	// Mode is auto (broker when this process's bus user is not shared,
	// body otherwise), broker (every message must come from a user naming
	// its sender) or body (trust the body: development).
	Mode string `mapstructure:"mode" yaml:"mode"`
	// SharedUsers are broker users several processes share (guest): their
	// messages name nobody.
	SharedUsers []string `mapstructure:"shared_users" yaml:"shared_users"`
	// Users maps broker users to the agent names they act as, entries
	// "user=AgentName" (a user may have several); a user no entry lists acts
	// as the agent of its own name.
	Users []string `mapstructure:"users" yaml:"users"`
}

// Identities is the mapping the identity keys describe, for agents, callers
// and directories (bus.Identities).
func (c *IdentityConfig) Identities() (*bus.Identities, error) {
	ids, err := bus.NewIdentities(c.Mode, c.SharedUsers, c.Users)
	if err != nil {
		return nil, fmt.Errorf("config: identity: %w", err)
	}
	return ids, nil
}

// BusUser is the broker user bus.url connects as (guest when it names none),
// "" for the embedded bus or a URL without a password-based user.
func (c *BusConfig) BusUser() string {
	if c.Embedded() {
		return ""
	}
	u, err := url.Parse(c.URL)
	if err != nil {
		return ""
	}
	if q := u.Query()["auth_mechanism"]; len(q) > 0 {
		for _, m := range q {
			if !strings.EqualFold(m, "plain") && !strings.EqualFold(m, "amqplain") {
				return ""
			}
		}
	}
	if u.User == nil || u.User.Username() == "" {
		return "guest"
	}
	return u.User.Username()
}

func (c *Config) validateIdentity() []error {
	ids, err := bus.NewIdentities(c.Identity.Mode, c.Identity.SharedUsers, c.Identity.Users)
	if err != nil {
		key := "identity.users"
		switch {
		case c.Identity.Mode != "" && c.Identity.Mode != bus.IdentityAuto && c.Identity.Mode != bus.IdentityBroker && c.Identity.Mode != bus.IdentityBody:
			key = "identity.mode"
		case sharedInvalid(c.Identity.SharedUsers):
			key = "identity.shared_users"
		}
		return []error{invalid(key, "%v", err)}
	}
	if ids.Mode() == bus.IdentityBroker && !c.Bus.Embedded() {
		if u := c.Bus.BusUser(); u != "" && ids.Shared(u) {
			return []error{invalid("identity.mode", "is broker, but bus.url connects as the shared user %q: "+
				"every message this process sends would name nobody and be refused; give it its own broker user", u)}
		}
	}
	return nil
}

func sharedInvalid(users []string) bool {
	for _, u := range users {
		if u == "" {
			return true
		}
	}
	return false
}

// Warnings are the weaknesses of a valid configuration that `a2abus config
// check` points out: a bus on which identities are not enforced (a shared
// broker user, or identity.mode body), the TLS ones (TLSWarnings), and an
// MCP endpoint allowed to serve without a token (mcp.insecure_no_auth),
// and a remote agent's credential sent over plain http.
func (c *Config) Warnings() []string {
	return slices.Concat(c.identityWarnings(), c.TLSWarnings(), c.MCP.warnings(), c.Remote.warnings())
}

// identityWarnings says when identities are not enforced on the bus.
func (c *Config) identityWarnings() []string {
	if c.Bus.Embedded() {
		return nil
	}
	ids, err := c.Identity.Identities()
	if err != nil {
		return nil // Validate reports it
	}
	user := c.Bus.BusUser()
	switch {
	case ids.Mode() == bus.IdentityBody:
		return []string{"identity.mode is body: receivers trust the caller and agent names written in message bodies, " +
			"so any process that can connect to the broker can act as any agent (see docs/security.md)"}
	case user != "" && ids.Shared(user):
		return []string{fmt.Sprintf("bus.url connects as the shared broker user %q: receivers here trust the caller and agent "+
			"names written in message bodies, so any process that can connect can act as any agent; give each agent and "+
			"caller its own broker user (a2abus access plan, docs/security.md)", user)}
	}
	return nil
}
