// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package config

import (
	"errors"
	"strings"
	"testing"
)

func TestIdentityValidation(t *testing.T) {
	for _, tc := range []struct {
		name, key string
		mod       func(*Config)
	}{
		{"unknown mode", "identity.mode", func(c *Config) { c.Identity.Mode = "trust-me" }},
		{"mapping without =", "identity.users", func(c *Config) { c.Identity.Users = []string{"alice"} }},
		{"mapping to a bad name", "identity.users", func(c *Config) { c.Identity.Users = []string{"alice=no.dots"} }},
		{"mapping a shared user", "identity.users", func(c *Config) { c.Identity.Users = []string{"guest=Cli"} }},
		{"empty shared user", "identity.shared_users", func(c *Config) { c.Identity.SharedUsers = []string{""} }},
		{"broker mode on guest", "identity.mode", func(c *Config) {
			c.Identity.Mode = "broker"
			c.Bus.URL = "amqp://guest:guest@rabbit:5672/"
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := Default()
			tc.mod(c)
			err := c.Validate()
			var fe *FieldError
			if !errors.As(err, &fe) || fe.Key != tc.key {
				t.Fatalf("Validate() = %v, want an error about %s", err, tc.key)
			}
		})
	}
	c := Default()
	c.Identity.Users = []string{"svc=SampleAgent", "svc=ResearchAgent"}
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	ids, err := c.Identity.Identities()
	if err != nil || len(ids.Names("svc")) != 2 {
		t.Fatalf("Identities() = %v, %v", ids, err)
	}
}

func TestIdentityWarnings(t *testing.T) {
	c := Default()
	if w := c.identityWarnings(); len(w) != 0 {
		t.Errorf("embedded bus: warnings %v, want none", w)
	}
	c.Bus.URL = "amqp://guest:guest@rabbit:5672/"
	if w := c.identityWarnings(); len(w) != 1 || !strings.Contains(w[0], `shared broker user "guest"`) {
		t.Errorf("guest: warnings %v", w)
	}
	c.Bus.URL = "amqp://rabbit:5672/" // no user: amqp091 logs in as guest
	if w := c.identityWarnings(); len(w) != 1 {
		t.Errorf("no user in the URL: warnings %v", w)
	}
	c.Bus.URL = "amqp://SampleAgent:pw@rabbit:5672/"
	if w := c.identityWarnings(); len(w) != 0 {
		t.Errorf("own user: warnings %v, want none", w)
	}
	c.Identity.Mode = "body"
	if w := c.identityWarnings(); len(w) != 1 || !strings.Contains(w[0], "identity.mode is body") {
		t.Errorf("body mode: warnings %v", w)
	}
	// Warnings is both kinds: here, the plain amqp:// to another host too.
	if w := c.Warnings(); len(w) != 2 || !strings.Contains(w[1], "travel in clear") {
		t.Errorf("all warnings: %v", w)
	}
}
