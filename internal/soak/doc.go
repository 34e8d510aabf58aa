// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

// Package soak is a2abus's soak test: many agent and caller processes on a
// private RabbitMQ node and Redis server, a mix of skills (fast, slow,
// failing, cancelled, timed out, nested, random), and a seeded fault plan
// that closes broker connections, restarts the broker app, kill -9s agents
// and callers (and restarts them) and pauses Redis. Callers write every task
// to a ledger before publishing it; at the end the checker compares the
// ledger with what working memory holds (one final outcome per task, one
// notification per outcome, no result different from what the handler
// produced, no stuck or unexplained dead-lettered messages) and the run
// prints one JSON summary line.
//
// The orchestrator (Run) execs its own binary for the roles: RunAgent and
// RunCaller are the child processes' entry points.
package soak
