// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package config

import (
	"slices"
	"strings"

	"github.com/a2abus/a2abus/internal/redact"
)

// Secret replaces every secret in the output of Redacted.
const Secret = redact.Secret

// Redacted returns a copy of c that is safe to print: the passwords in
// bus.url, redis.url and llm.base_url, redis.password,
// directory.announce_secret, llm.api_key, mcp.token, the bearer tokens and
// API keys of remote.agents and the keys of gateway.keys are replaced by Secret.
func (c *Config) Redacted() *Config {
	r := *c
	r.Redis.Addrs = slices.Clone(c.Redis.Addrs)
	r.Policy.Rules = slices.Clone(c.Policy.Rules) // a copy the caller may change
	r.Bus.URL = redact.URL(c.Bus.URL)
	r.Redis.URL = redact.URL(c.Redis.URL)
	if r.Redis.Password != "" {
		r.Redis.Password = Secret
	}
	if r.Directory.AnnounceSecret != "" {
		r.Directory.AnnounceSecret = Secret
	}
	r.LLM.BaseURL = redact.URL(c.LLM.BaseURL)
	if r.LLM.APIKey != "" {
		r.LLM.APIKey = Secret
	}
	if r.MCP.Token != "" {
		r.MCP.Token = Secret
	}
	r.Remote.Agents = slices.Clone(c.Remote.Agents)
	for i := range r.Remote.Agents {
		a := &r.Remote.Agents[i]
		if a.BearerToken != "" {
			a.BearerToken = Secret
		}
		if a.APIKey != "" {
			a.APIKey = Secret
		}
	}
	r.Gateway.Keys = slices.Clone(c.Gateway.Keys)
	for i, e := range r.Gateway.Keys {
		if name, _, ok := strings.Cut(e, "="); ok {
			r.Gateway.Keys[i] = name + "=" + Secret
		} else {
			r.Gateway.Keys[i] = Secret
		}
	}
	return &r
}
