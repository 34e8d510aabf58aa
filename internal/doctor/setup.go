// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package doctor

import (
	"strings"

	"github.com/a2abus/a2abus/bus"
	"github.com/a2abus/a2abus/internal/cliutil"
	"github.com/a2abus/a2abus/internal/redact"
)

// setup reports the servers that apply (and where their URLs came from)
// and the identity mode that results.
func (r *run) setup() {
	cfg := r.l.Config
	memory := redact.URL(cfg.Redis.URL)
	if cfg.Redis.URL == "" {
		memory = "redis.addrs " + strings.Join(cfg.Redis.Addrs, ",")
	}
	r.add("urls", Pass, "bus %s (%s), memory %s (%s)", redact.URL(cfg.Bus.URL), origin(r.l.Origins.Bus, "bus.url"),
		memory, origin(r.l.Origins.Memory, "redis.url"))

	ids, err := cfg.Identity.Identities()
	if err != nil { // Validate refused it already; kept for safety
		r.add("identity", Fail, "%v", err)
		return
	}
	user := cfg.Bus.BusUser()
	switch mode := ids.Mode(); {
	case cfg.Bus.Embedded():
		r.add("identity", Pass, "%s: the embedded bus carries no broker users; names are taken from message bodies", mode)
	case mode == bus.IdentityBody || (mode == bus.IdentityAuto && ids.Shared(user)):
		r.add("identity", Warn, "%s: bus.url connects as the shared broker user %q, so receivers trust the names written in message bodies "+
			"and any process that can connect can act as any agent; give each agent and caller its own broker user "+
			"(a2abus access plan, docs/security.md) — fine for development", mode, user)
	default:
		r.add("identity", Pass, "%s: senders are named by their broker user (this process: %q), which RabbitMQ validates", mode, user)
	}
}

// origin says where a server URL came from.
func origin(o cliutil.Origin, key string) string {
	switch o {
	case cliutil.LocalDefault:
		return key + " unset: the local default"
	case cliutil.Embedded:
		return "embedded in-process"
	}
	return "configured"
}
