// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package tools

import "github.com/a2abus/a2abus/pkg/schema/jsonschema"

// The tests compile and check JSON Schemas: they link the validator, as
// the programs that run this code do (docs/architecture.md#optional-parts).
func init() { jsonschema.Register() }
