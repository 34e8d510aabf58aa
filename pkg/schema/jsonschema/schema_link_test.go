// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package jsonschema

// The tests compile through pkg/schema, as the programs that register this package do.
func init() { Register() }
