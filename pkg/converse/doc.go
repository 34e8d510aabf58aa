// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

// Package converse runs orchestrated agent-to-agent conversations
// on the bus: an orchestrator asks a local agent for a draft, sends it to a
// remote agent, feeds the reply back and loops, one turn in flight at a time,
// until a limit, the local agent or a person ends it.
//
// A conversation is durable in working memory (its record, a control log and
// per-send markers), so any process may drive it — one at a time, under a
// lease — and a driver killed mid-turn is replaced without a turn being sent
// twice. Controls (pause, resume, stop, takeover, approve) are appended to the
// conversation's control log and announced on the bus under
// converse.control.<id>, which the driving process's instance queue binds.
//
//	Start (record, idle) → Drive: planning → waiting_local → ready_to_send →
//	waiting_remote → processing_remote → planning … → completed | error | stopped
//
// Paused is an overlay on any non-terminal state: the turn in flight ends,
// nothing new is sent until resume.
package converse
