// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package tools

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math/big"
	"slices"
	"strings"

	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/schema"
)

// Patterns of the names in the schemas: the rules of pkg/a2a
// (a2a.ValidateAgentName, a2a.ValidateSkillID).
const (
	agentNamePattern = a2a.AgentNameRegexp
	agentNameHint    = "a letter, then up to 63 letters, digits, '_' or '-'"
	skillIDPattern   = a2a.SkillIDRegexp
	skillIDHint      = "a letter or digit, then up to 63 letters, digits, '_', '.' or '-'"
)

// param is one argument of a tool.
type param struct {
	name     string
	required bool
	schema   map[string]any // the argument's JSON Schema
	hint     string         // what the schema's pattern means, in words
	// requiredWithout names an argument whose absence makes this one
	// required (checked after the schema, which cannot say "unless").
	requiredWithout string
}

// argSchema is a tool's arguments schema, compiled once, with what is needed
// to explain a violation.
type argSchema struct {
	tool     string
	params   []param
	raw      json.RawMessage
	compiled *schema.Schema
}

// newArgSchema builds the JSON Schema (draft 2020-12) of an object with
// params as its only properties, in their order, and compiles it.
func newArgSchema(tool string, params []param) (*argSchema, error) {
	var b bytes.Buffer
	b.WriteString(`{"type":"object","properties":{`)
	var required []string
	for i, p := range params {
		if i > 0 {
			b.WriteByte(',')
		}
		name, _ := json.Marshal(p.name)
		prop, err := json.Marshal(p.schema)
		if err != nil {
			return nil, fmt.Errorf("tools: %s: encode schema of %q: %w", tool, p.name, err)
		}
		b.Write(name)
		b.WriteByte(':')
		b.Write(prop)
		if p.required {
			required = append(required, p.name)
		}
	}
	req, _ := json.Marshal(append([]string{}, required...))
	fmt.Fprintf(&b, `},"required":%s,"additionalProperties":false}`, req)

	compiled, err := schema.New(b.Bytes())
	if err != nil {
		return nil, fmt.Errorf("tools: %s: compile schema: %w", tool, err)
	}
	return &argSchema{tool: tool, params: params, raw: b.Bytes(), compiled: compiled}, nil
}

// validate checks args against the schema. Empty args mean {}. It returns
// nil, one *ArgumentError, or several joined (errors.As finds the first).
func (s *argSchema) validate(args json.RawMessage) error {
	args = bytes.TrimSpace(args)
	if len(args) == 0 {
		args = json.RawMessage("{}")
	}
	v, err := schema.Decode(args)
	if err != nil {
		var syn *json.SyntaxError
		detail := err.Error()
		if errors.As(err, &syn) {
			detail = fmt.Sprintf("%s (at byte %d)", detail, syn.Offset)
		}
		return s.argErr("", "the arguments are not a JSON object: "+detail, nil)
	}
	if _, ok := v.(map[string]any); !ok {
		return s.argErr("", "the arguments are not a JSON object: got "+schema.Show(v), nil)
	}
	violations, err := s.compiled.Check(v)
	if err != nil {
		return fmt.Errorf("tools: %s: validate arguments: %w", s.tool, err)
	}
	problems := make([]*ArgumentError, len(violations))
	for i, vi := range violations {
		problems[i] = s.explain(vi)
	}
	problems = append(problems, s.missing(v.(map[string]any))...)
	slices.SortStableFunc(problems, func(a, b *ArgumentError) int { return s.rank(a.Path) - s.rank(b.Path) })
	errs := make([]error, len(problems))
	for i, p := range problems {
		errs[i] = p
	}
	if len(errs) == 1 {
		return errs[0]
	}
	return errors.Join(errs...)
}

// missing reports the arguments required without another that are absent
// together with it.
func (s *argSchema) missing(args map[string]any) []*ArgumentError {
	var out []*ArgumentError
	for _, p := range s.params {
		if p.requiredWithout == "" {
			continue
		}
		_, given := args[p.name]
		_, other := args[p.requiredWithout]
		if !given && !other {
			out = append(out, s.argErr(p.name, fmt.Sprintf("missing required argument %q", p.name), nil))
		}
	}
	return out
}

// rank orders problems by the position of their argument in the schema;
// unknown arguments come last.
func (s *argSchema) rank(path string) int {
	name, _, _ := strings.Cut(path, "/")
	if i := slices.IndexFunc(s.params, func(p param) bool { return p.name == name }); i >= 0 {
		return i
	}
	return len(s.params)
}

func (s *argSchema) names() string {
	names := make([]string, len(s.params))
	for i, p := range s.params {
		names[i] = p.name
	}
	return strings.Join(names, ", ")
}

// known lists the arguments the object holding the one at location may
// have: the tool's, or a nested object's (sorted).
func (s *argSchema) known(location []string) string {
	if len(location) < 2 {
		return s.names()
	}
	i := s.rank(location[0])
	if i >= len(s.params) {
		return s.names()
	}
	obj := s.params[i].schema
	for _, seg := range location[1 : len(location)-1] {
		props, _ := obj["properties"].(map[string]any)
		if obj, _ = props[seg].(map[string]any); obj == nil {
			return s.names()
		}
	}
	props, _ := obj["properties"].(map[string]any)
	names, parent := slices.Sorted(maps.Keys(props)), strings.Join(location[:len(location)-1], "/")
	for i, n := range names {
		names[i] = parent + "/" + n
	}
	return strings.Join(names, ", ")
}

func (s *argSchema) argErr(path, msg string, cause error) *ArgumentError {
	return &ArgumentError{Tool: s.tool, Path: path, Message: msg, Err: cause}
}

// explain turns one schema violation into the problem it reports. A
// missing or unknown argument is located at the argument itself.
func (s *argSchema) explain(v schema.Violation) *ArgumentError {
	path := strings.Join(v.Location, "/")
	switch v.Keyword {
	case "required":
		return s.argErr(path, fmt.Sprintf("missing required argument %q", path), nil)
	case "additionalProperties":
		return s.argErr(path, fmt.Sprintf("unknown argument %q (known: %s)", path, s.known(v.Location)), nil)
	}
	if path == "" {
		return s.argErr("", "the arguments "+s.rule(v, ""), nil)
	}
	return s.argErr(path, fmt.Sprintf("argument %q: %s", path, s.rule(v, path)), nil)
}

// rule says what the value at path must be and what it is; the rules the
// tools' schemas do not use are worded by pkg/schema.
func (s *argSchema) rule(v schema.Violation, path string) string {
	value := v.Value
	switch want := v.Want.(type) {
	case []string: // type
		return fmt.Sprintf("must be %s, got %s", typeNames(want), schema.Show(value))
	case []any: // enum
		shown := make([]string, len(want))
		for i, w := range want {
			shown[i] = schema.Show(w)
		}
		return fmt.Sprintf("must be one of %s, got %s", strings.Join(shown, ", "), schema.Show(value))
	case string: // pattern
		hint := ""
		if i := s.rank(path); i < len(s.params) && s.params[i].hint != "" {
			hint = " (" + s.params[i].hint + ")"
		}
		return fmt.Sprintf("must match %s%s, got %s", want, hint, schema.Show(value))
	case int:
		got, _ := v.Got.(int)
		switch {
		case v.Keyword == "minLength" && want == 1:
			return "must not be empty"
		case v.Keyword == "minLength":
			return fmt.Sprintf("must be at least %d characters long, got %d", want, got)
		case v.Keyword == "maxLength":
			return fmt.Sprintf("must be at most %d characters long, got %d", want, got)
		}
	case *big.Rat:
		got, _ := v.Got.(*big.Rat)
		switch v.Keyword {
		case "minimum":
			return fmt.Sprintf("must be >= %s, got %s", schema.FormatNumber(want), schema.FormatNumber(got))
		case "maximum":
			return fmt.Sprintf("must be <= %s, got %s", schema.FormatNumber(want), schema.FormatNumber(got))
		}
	}
	return v.Rule()
}

// typeNames renders JSON Schema type names with articles: "an integer or a string".
func typeNames(types []string) string {
	out := make([]string, len(types))
	for i, t := range types {
		switch t {
		case "integer", "object", "array":
			out[i] = "an " + t
		case "null":
			out[i] = "null"
		default:
			out[i] = "a " + t
		}
	}
	return strings.Join(out, " or ")
}
