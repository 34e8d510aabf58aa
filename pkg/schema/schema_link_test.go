// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package schema_test

import "github.com/a2abus/a2abus/pkg/schema/jsonschema"

// The tests compile and validate: the validator is linked, as in the
// programs that register it (TestWithoutAValidator unlinks it for a while).
func init() { jsonschema.Register() }
