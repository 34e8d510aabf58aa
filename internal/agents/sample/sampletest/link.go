// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package sampletest

import "github.com/a2abus/a2abus/pkg/schema/jsonschema"

// SampleAgent's npv skill declares an input schema, so the tests that run
// SampleAgent link the JSON Schema validator, as sample-agent and a2abus do.
func init() { jsonschema.Register() }
