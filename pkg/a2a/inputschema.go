// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package a2a

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
)

// MaxInputSchemaBytes bounds the JSON Schema of one skill's structured input.
const MaxInputSchemaBytes = 64 << 10

// ValidateInputSchemas checks the input schemas declared beside a card: every
// key is the id of one of skills, every value a JSON object of at most
// MaxInputSchemaBytes. It checks the shape only: pkg/schema compiles them.
// field names the map in the *FieldError, e.g. "inputSchemas".
func ValidateInputSchemas(field string, schemas map[string]json.RawMessage, skills []AgentSkill) error {
	if len(schemas) == 0 {
		return nil
	}
	onCard := make(map[string]bool, len(skills))
	for _, s := range skills {
		onCard[s.ID] = true
	}
	for _, id := range slices.Sorted(maps.Keys(schemas)) {
		raw := schemas[id]
		f := fmt.Sprintf("%s[%q]", field, id)
		if !onCard[id] {
			return fieldErr(f, ErrInvalidField, fmt.Sprintf("%q is not a skill of the card", id))
		}
		raw = bytes.TrimSpace(raw)
		switch {
		case len(raw) == 0 || bytes.Equal(raw, []byte("null")):
			return fieldErr(f, ErrMissingField, "a JSON Schema object is required")
		case len(raw) > MaxInputSchemaBytes:
			return fieldErr(f, ErrInvalidField, fmt.Sprintf("at most %d bytes, got %d", MaxInputSchemaBytes, len(raw)))
		case !json.Valid(raw):
			return fieldErr(f, ErrInvalidField, "not valid JSON")
		case raw[0] != '{':
			return fieldErr(f, ErrInvalidField, "must be a JSON object (a JSON Schema)")
		}
	}
	return nil
}
