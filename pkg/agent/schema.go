// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package agent

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/schema"
)

// SkillOption configures a skill registered with Handle: a Middleware
// wrapping its handler, WithInputSchema or WithSelfCheckedInputSchema.
type SkillOption interface {
	applySkill(*skillConfig)
}

// skillConfig is what Handle's options say about one skill.
type skillConfig struct {
	mw          []Middleware
	schema      json.RawMessage
	hasSchema   bool
	selfChecked bool // WithSelfCheckedInputSchema
}

// applySkill makes a Middleware a SkillOption: it wraps the skill's handler.
func (m Middleware) applySkill(c *skillConfig) {
	if m != nil {
		c.mw = append(c.mw, m)
	}
}

type inputSchemaOption struct {
	raw         json.RawMessage
	selfChecked bool
}

func (o inputSchemaOption) applySkill(c *skillConfig) {
	c.schema, c.hasSchema, c.selfChecked = o.raw, true, o.selfChecked
}

// inputSchema is a skill's declared input schema: raw is announced, check
// (nil for a self-checked schema in a program without a validator) is
// checked before the handler runs.
type inputSchema struct {
	raw   json.RawMessage
	check *schema.Schema
}

// WithInputSchema declares the JSON Schema of the skill's structured input.
// The agent announces it beside its card (callers with a directory check
// their input before publishing) and checks every task against it before
// running the handler: a violation is answered with INVALID_INPUT naming the
// path and the rule, and the handler does not run. The value checked is the
// request's input; without one, a message text that is a JSON object;
// otherwise null, so a schema that accepts null also accepts a task without
// structured input. A bad schema makes Handle fail with ErrInvalidOptions
// wrapping schema.ErrInvalidSchema; in a program that registered no JSON
// Schema validator (jsonschema.Register() of pkg/schema/jsonschema, in
// main), Handle fails with an error wrapping schema.ErrNotLinked: the agent
// is the last check of its input, so it never runs without it.
func WithInputSchema(raw json.RawMessage) SkillOption { return inputSchemaOption{raw: raw} }

// WithSelfCheckedInputSchema is WithInputSchema for a skill whose handler
// checks its own input at least as strictly as the schema says (required
// fields, types, ranges, unknown fields), answering INVALID_INPUT itself.
// With a validator registered the agent checks the schema too; without one
// the schema is still announced (checked only for its shape: a JSON object
// of at most schema.MaxBytes) and the handler's check is the last one, so a
// program can declare the schema without linking the validator.
func WithSelfCheckedInputSchema(raw json.RawMessage) SkillOption {
	return inputSchemaOption{raw: raw, selfChecked: true}
}

// skillOptions applies opts and compiles the schema they declare, if any.
func skillOptions(skill string, opts []SkillOption) (skillConfig, *inputSchema, error) {
	var cfg skillConfig
	for _, o := range opts {
		if o != nil {
			o.applySkill(&cfg)
		}
	}
	if !cfg.hasSchema {
		return cfg, nil, nil
	}
	s, err := schema.Compile(cfg.schema)
	if errors.Is(err, schema.ErrNotLinked) && cfg.selfChecked {
		raw, _, err := schema.Compact(cfg.schema)
		if err != nil {
			return cfg, nil, fmt.Errorf("%w: input schema of skill %q: %w", ErrInvalidOptions, skill, err)
		}
		return cfg, &inputSchema{raw: raw}, nil
	}
	if errors.Is(err, schema.ErrNotLinked) {
		return cfg, nil, fmt.Errorf("agent: input schema of skill %q cannot be checked: %w", skill, err)
	}
	if err != nil {
		return cfg, nil, fmt.Errorf("%w: input schema of skill %q: %w", ErrInvalidOptions, skill, err)
	}
	return cfg, &inputSchema{raw: s.Raw(), check: s}, nil
}

// setInputSchemaLocked records the schema of skill (nil: none); a.mu is held.
func (a *Agent) setInputSchemaLocked(skill string, s *inputSchema) {
	if s == nil {
		return
	}
	if a.schemas == nil {
		a.schemas = map[string]*inputSchema{}
	}
	a.schemas[skill] = s
}

// InputSchemas returns the input schemas declared with WithInputSchema or
// WithSelfCheckedInputSchema, by skill id (copies); nil when there are none.
// They are announced with the card.
func (a *Agent) InputSchemas() map[string]json.RawMessage {
	a.mu.Lock()
	defer a.mu.Unlock()
	if len(a.schemas) == 0 {
		return nil
	}
	out := make(map[string]json.RawMessage, len(a.schemas))
	for id, s := range a.schemas {
		out[id] = slices.Clone(s.raw)
	}
	return out
}

// checkInput checks the task's structured input against its skill's schema
// before the handler runs; nil when it passes or the skill declares none.
func (a *Agent) checkInput(req *a2a.TaskRequest) *a2a.Error {
	a.mu.Lock()
	s := a.schemas[req.Skill]
	a.mu.Unlock()
	if s == nil || s.check == nil {
		return nil
	}
	err := s.check.Validate(schema.Input(req.Input, a2a.MessageText(req.Message)))
	if err == nil {
		return nil
	}
	e := &a2a.Error{Code: a2a.CodeInvalidInput, Message: err.Error()}
	errors.As(err, &e)
	return &a2a.Error{Code: e.Code, Message: fmt.Sprintf("skill %q of %q: %s", req.Skill, a.Name(), e.Message), Retryable: e.Retryable}
}
