// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

// Package remotetest proves `a2abus serve --remote` with remote A2A agents
// nobody here wrote: server.mjs, an agent of the official JavaScript SDK
// (npm @a2a-js/sdk), once with SDK 1.x (A2A 1.0) and once with SDK 0.3.x
// (A2A 0.3). Its tests install each SDK into a cache outside the
// repository (never node_modules here), run the built binary and a caller
// on the real bus and Redis, and check the result, the stream of statuses,
// a cancel and a failure.
package remotetest

// The versions of npm @a2a-js/sdk the tests install: the newest, which
// speaks A2A 1.0, and the last of 0.3.x, which speaks A2A 0.3.
const (
	JSSDKVersion   = "1.3.0"
	JSSDK03Version = "0.3.14"
)
