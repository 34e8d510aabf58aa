// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

// Package console is `a2abus console`: a read-only web view of the mesh,
// served by the binary itself with html/template and a small embedded
// script and style sheet (nothing from outside, no build step).
//
// Its pages are the agents of the directory with their task queues; a
// session's conversation, call history, tree of calls, task waterfall and
// stored results, kept live with server-sent events; workflow runs and
// orchestrated conversations; the dead-letter queue; and the process's view
// of the broker, Redis and the call guard. Everything an agent wrote is
// shown as text (html/template escapes it, and the Content-Security-Policy
// lets no inline script run). It listens on loopback unless given a token
// (see Options.Token). It is a host part: New, Listen, then Run.
package console
