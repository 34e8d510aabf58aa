// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

// Package gateway is the A2A HTTP front end of the bus (a2abus gateway):
// every agent the directory knows becomes an A2A v1.0 server that any A2A
// client — the SDKs of Python, JavaScript, Java, Go — can call over
// JSON-RPC or HTTP+JSON (REST), with server-sent events for streams.
//
// The protocol is a2a-go's (a2asrv's transports, card handlers and types);
// this package only maps it onto the bus. Each request is authenticated
// (API keys, static bearer tokens, or OIDC JWTs) and acts as one caller
// name on the bus, through that name's caller (pkg/caller): the policy,
// the limits and the task records are the caller's, so a principal sees
// and cancels only its own tasks, and every replica of the gateway answers
// for every task (the records and results live in working memory).
//
// Per agent, under /agents/<Name>:
//
//	GET  /agents/<Name>/.well-known/agent-card.json   the agent's A2A card
//	POST /agents/<Name>                               JSON-RPC
//	     /agents/<Name>/rest/...                      HTTP+JSON (REST)
//	GET  /agents                                      the catalog
//
// The mapping, method by method, is in handler.go; the bus's error codes
// and the A2A states and errors they become are in errors.go and
// docs/a2a-http.md.
package gateway
