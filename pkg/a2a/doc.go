// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

// Package a2a is the a2abus wire protocol: message kinds, the envelope (which
// AMQP properties and headers carry what), the payload of every kind, typed
// error codes, name validation, and the functions that build routing keys and
// queue names. The data model is A2A v1.0, re-exported from
// github.com/a2aproject/a2a-go/v2/a2a so the HTTP A2A world bridges without
// translation. The package is pure: no I/O, no logging.
package a2a
