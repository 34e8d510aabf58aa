// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package main

// Set at build time: go build -ldflags "-X main.version=v1.2.3 -X main.commit=abc1234".
var (
	version = "dev"
	commit  = "dev"
)
