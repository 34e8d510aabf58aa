// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

// Package directory is the agent directory: it consumes the cards agents
// announce on discovery.announce, tracks each agent's live instances, always
// lists the agents of well-known-agents.json, marks agents that stop
// announcing offline and later forgets them, persists what it knows to
// known-agents.json and answers look-ups (case-insensitive, by skill, nearest
// names) for list_known_agents and for vetting invoke targets.
//
// State: every agent has a canonical name (the well-known file's spelling,
// else the most recently announced one), its newest card and its live
// instances. An agent with live instances is online; without, offline. A
// well-known agent that has not announced since the directory started is
// StatusWellKnown; well-known agents are never removed. Other agents are
// forgotten ForgetAfter after they were last seen, once offline.
//
// Bounds: at most Options.MaxAgents agents learned from announcements
// (well-known agents are not counted); cards up to MaxCardBytes, MaxCardSkills
// skills and MaxDescriptionBytes per description; announcement times at most
// MaxClockSkew ahead of the directory's clock and from the envelope's
// (signed) timestamp, so a card dated ahead cannot win over later ones.
// Drops are warnings, each kind logged at most once a minute.
//
// Signed cards (trust.go): besides the shared HMAC of AnnounceSecret (the
// simple mode), agents may sign announcements with their own ed25519 key
// (a2a.SignEd25519). Under TrustPinned (default) a name whose key the
// well-known file pins (publicKey) is listed, updated and deregistered only
// by announcements signed with that key; TrustTOFU also pins the first key
// an unpinned name signs with, in PinsFile; TrustAny ignores the keys. A
// bad signature is refused whatever the name. Refusals are warnings too.
//
// Persistence: changes are written at most once per PersistDebounce to a
// temporary file in the target's folder, fsynced and renamed over the
// target, and flushed when the directory stops. A missing file is a first
// boot; a bad one stops New with the file, the entry and the reason.
//
// Sharing and warm-up (shared.go): with Options.Shared, the listing is also one
// known-agents document in working memory that every directory of the
// deployment restores when Run starts and writes after its changes (last
// writer wins), so a process that starts lists at once what the others
// knew. Warm says when the first discovery round has ended.
package directory
