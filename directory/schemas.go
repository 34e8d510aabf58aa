// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package directory

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"

	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/schema"
)

// InputSchema returns the JSON Schema the agent (any spelling) declares for
// the structured input of skill, from its announcements or the well-known
// file; ok is false when it declares none. It satisfies caller.SchemaSource.
func (d *Directory) InputSchema(agent, skill string) (json.RawMessage, bool) {
	e, ok := d.Lookup(agent)
	if !ok {
		return nil, false
	}
	raw, ok := e.InputSchemas[skill]
	return raw, ok
}

// InputSchema is Directory.InputSchema: the schema look-up reaches the
// directory through the resolver callers are given.
func (r PatientResolver) InputSchema(agent, skill string) (json.RawMessage, bool) {
	return r.Directory.InputSchema(agent, skill)
}

// compileSchemas checks the input schemas declared beside a card (each key
// a skill of the card, each value a JSON Schema object that compiles with
// pkg/schema) and returns the valid ones, compacted, and why the others are
// not, by skill id; both nil when none are declared. In a program that
// registered no JSON Schema validator (pkg/schema/jsonschema) a schema is
// not compiled: the ones that pass the structural checks (a skill of the
// card, a JSON object of at most schema.MaxBytes) are kept, compacted. Such
// a program's callers do not check input before publishing either
// (pkg/caller), and the agents check their own.
func compileSchemas(schemas map[string]json.RawMessage, skills []a2a.AgentSkill) (valid map[string]json.RawMessage, bad map[string]string) {
	linked := schema.Linked()
	for _, id := range slices.Sorted(maps.Keys(schemas)) {
		one := map[string]json.RawMessage{id: schemas[id]}
		var reason string
		if err := a2a.ValidateInputSchemas("inputSchemas", one, skills); err != nil {
			reason = err.Error()
		} else if raw, err := compactSchema(schemas[id], linked); err != nil {
			reason = fmt.Sprintf("inputSchemas[%q]: %v", id, err)
		} else {
			if valid == nil {
				valid = map[string]json.RawMessage{}
			}
			valid[id] = raw
			continue
		}
		if bad == nil {
			bad = map[string]string{}
		}
		bad[id] = reason
	}
	return valid, bad
}

// compactSchema compiles raw when the validator is linked, else only
// compacts it; it returns the compacted schema.
func compactSchema(raw json.RawMessage, linked bool) (json.RawMessage, error) {
	if !linked {
		compact, _, err := schema.Compact(raw)
		return compact, err
	}
	s, err := schema.Compile(raw)
	if err != nil {
		return nil, err
	}
	return s.Raw(), nil
}

// checkInputSchemas checks the schemas of a file's entry: it returns them
// compacted, or why the first invalid one is invalid.
func checkInputSchemas(schemas map[string]json.RawMessage, skills []a2a.AgentSkill) (map[string]json.RawMessage, string) {
	valid, bad := compileSchemas(schemas, skills)
	for _, id := range slices.Sorted(maps.Keys(bad)) {
		return nil, bad[id]
	}
	return valid, ""
}
