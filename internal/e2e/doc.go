// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

// Package e2e holds the end-to-end tests of a2abus: they build the binaries
// (a2abus, sample-agent, research-agent) and run them as separate processes
// against the real RabbitMQ and Redis — invoking from the CLI, running an
// agent one-shot as a KEDA job would, killing agents mid-task, restarting
// callers — and check what lands in working memory. Each test has its own
// exchange, key prefix and agent names, so they run in parallel
// (t.Parallel), all but the one that starts twenty CLI processes at once.
package e2e
