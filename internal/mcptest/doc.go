// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

// Package mcptest proves `a2abus mcp` with the official TypeScript MCP
// client (npm @modelcontextprotocol/sdk) over stdio and streamable HTTP.
// client.mjs is the client; its tests install the SDK, at TSSDKVersion,
// into a cache outside the repository (never node_modules here) and run it
// against the built binary and a SampleAgent on the real bus and Redis.
package mcptest

// TSSDKVersion is the version of npm @modelcontextprotocol/sdk the tests install.
const TSSDKVersion = "1.32.2"
