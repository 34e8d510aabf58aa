// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

// Package gatewaytest proves `a2abus gateway` as separate processes on the
// real bus and Redis: the official A2A JavaScript SDK (npm @a2a-js/sdk)
// as its client over JSON-RPC and HTTP+JSON (client.mjs; the tests install
// the SDK, at JSSDKVersion, into a cache outside the repository, never
// node_modules here), and a replica killed during a stream, whose client
// resubscribes to another replica.
package gatewaytest

// JSSDKVersion is the version of npm @a2a-js/sdk the tests install: it
// speaks A2A v1.0, as the gateway does.
const JSSDKVersion = "1.3.0"
