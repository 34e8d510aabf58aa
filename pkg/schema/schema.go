// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

// Package schema compiles the JSON Schemas that skills declare for their
// structured input and checks inputs against them, with
// github.com/santhosh-tekuri/jsonschema/v6 (draft 2020-12 unless the schema
// names another draft with $schema).
//
// A violation is INVALID_INPUT naming the JSON Pointer of the value at fault
// and the rule it breaks, e.g. `/discount_rate: type: got string, want
// number`. Every violation is listed, up to MaxViolations.
//
// Schemas come from peers (announcements), so compiling never reads a file
// or the network: $ref resolves only inside the schema itself and the
// meta-schemas the library embeds. A bad schema is an error wrapping
// ErrInvalidSchema, never a panic.
package schema

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"

	"github.com/a2abus/a2abus/pkg/a2a"
)

// Sentinel errors of the package.
var (
	// ErrInvalidSchema: a schema is not valid JSON, not an object, too large,
	// breaks its meta-schema or refers to something outside itself.
	ErrInvalidSchema = errors.New("schema: invalid schema")
	// errNoLoader: compiling never fetches a referenced document.
	errNoLoader = errors.New("external references are not resolved; keep $ref inside the schema")
)

// MaxBytes bounds a schema's size: the wire protocol's limit.
const MaxBytes = a2a.MaxInputSchemaBytes

// Schema is a compiled JSON Schema. Safe for concurrent use.
type Schema struct {
	raw      json.RawMessage
	hash     string
	compiled *jsonschema.Schema
}

// New compiles raw (a JSON object) without the cache; see Compile.
func New(raw json.RawMessage) (*Schema, error) {
	canon, hash, err := canonical(raw)
	if err != nil {
		return nil, err
	}
	return compile(canon, hash)
}

// Raw is the schema as given, compacted.
func (s *Schema) Raw() json.RawMessage { return s.raw }

// Hash is the hex SHA-256 of the compacted schema: two schemas with the same
// content share it.
func (s *Schema) Hash() string { return s.hash }

// canonical compacts raw and hashes it; a schema that is not a JSON object
// of at most MaxBytes is refused.
func canonical(raw json.RawMessage) (json.RawMessage, string, error) {
	raw = bytes.TrimSpace(raw)
	switch {
	case len(raw) == 0:
		return nil, "", fmt.Errorf("%w: empty", ErrInvalidSchema)
	case len(raw) > MaxBytes:
		return nil, "", fmt.Errorf("%w: %d bytes, at most %d", ErrInvalidSchema, len(raw), MaxBytes)
	case raw[0] != '{':
		return nil, "", fmt.Errorf("%w: must be a JSON object", ErrInvalidSchema)
	}
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return nil, "", fmt.Errorf("%w: not valid JSON: %w", ErrInvalidSchema, err)
	}
	sum := sha256.Sum256(b.Bytes())
	return b.Bytes(), hex.EncodeToString(sum[:]), nil
}

// compile builds the schema from its compacted form; a panic of the library
// on a hostile schema is returned as ErrInvalidSchema.
func compile(canon json.RawMessage, hash string) (s *Schema, err error) {
	defer func() {
		if p := recover(); p != nil {
			s, err = nil, fmt.Errorf("%w: the compiler failed: %v", ErrInvalidSchema, p)
		}
	}()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(canon))
	if err != nil {
		return nil, fmt.Errorf("%w: not valid JSON: %w", ErrInvalidSchema, err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.UseLoader(noLoader{})
	url := "urn:a2abus:schema:" + hash
	if err := c.AddResource(url, doc); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalidSchema, trimURL(err, url))
	}
	compiled, err := c.Compile(url)
	var meta *jsonschema.SchemaValidationError
	var ve *jsonschema.ValidationError
	switch {
	case errors.As(err, &meta) && errors.As(meta.Err, &ve):
		vs := collect(ve, doc, nil)
		slices.SortStableFunc(vs, func(a, b Violation) int { return compareLocations(a.Location, b.Location) })
		return nil, fmt.Errorf("%w: it breaks the JSON Schema meta-schema: %s", ErrInvalidSchema, Summary(vs))
	case err != nil:
		return nil, fmt.Errorf("%w: %v", ErrInvalidSchema, trimURL(err, url))
	}
	out := &Schema{raw: canon, hash: hash, compiled: compiled}
	if loc := out.refCycle(); loc != "" {
		return nil, fmt.Errorf("%w: %s", ErrInvalidSchema, loc)
	}
	return out, nil
}

// refCycle returns the description of a $ref cycle that makes validation
// fail whatever the input ({"$ref": "#"}), found by validating a few probe
// values; "" when there is none.
func (s *Schema) refCycle() string {
	for _, probe := range []any{nil, map[string]any{}, []any{}, json.Number("0"), "", false} {
		vs, err := s.Check(probe)
		if err != nil {
			return err.Error()
		}
		for _, v := range vs {
			if _, ok := v.Kind.(*kind.RefCycle); ok {
				return v.Detail
			}
		}
	}
	return ""
}

// noLoader refuses every external document.
type noLoader struct{}

func (noLoader) Load(string) (any, error) { return nil, errNoLoader }

// trimURL drops the schema's internal URL from the library's messages.
func trimURL(err error, url string) string {
	msg := strings.ReplaceAll(err.Error(), url+"#", "#")
	return strings.ReplaceAll(msg, url, "the schema")
}

// Decode parses a JSON value the way the validator expects it (numbers as
// json.Number); trailing data is an error.
func Decode(raw json.RawMessage) (any, error) {
	return jsonschema.UnmarshalJSON(bytes.NewReader(raw))
}

// Input is the JSON value a skill's schema checks for a request: its
// structured input; without one, a message text that is a JSON object (what
// text-only callers such as an LLM's invoke_agent send, and what skills like
// SampleAgent.npv accept); otherwise nil, checked as JSON null.
func Input(input json.RawMessage, text string) json.RawMessage {
	if len(bytes.TrimSpace(input)) > 0 {
		return input
	}
	t := strings.TrimSpace(text)
	if strings.HasPrefix(t, "{") && json.Valid([]byte(t)) {
		return json.RawMessage(t)
	}
	return nil
}

// Validate checks input (absent input is JSON null) against the schema. A
// violation is an *a2a.Error INVALID_INPUT listing every path and rule
// broken (at most MaxViolations, then how many more); input that is not
// JSON is INVALID_INPUT too.
func (s *Schema) Validate(input json.RawMessage) error {
	input = bytes.TrimSpace(input)
	absent := len(input) == 0
	if absent {
		input = json.RawMessage("null")
	}
	v, err := Decode(input)
	if err != nil {
		return a2a.NewError(a2a.CodeInvalidInput, "input is not valid JSON: %v", err)
	}
	vs, err := s.Check(v)
	if err != nil {
		return a2a.NewError(a2a.CodeInternal, "input could not be checked against its schema: %v", err)
	}
	if len(vs) == 0 {
		return nil
	}
	lead := "input does not match the schema"
	if absent {
		lead = "structured input is required (none was given, checked as null)"
	}
	return a2a.NewError(a2a.CodeInvalidInput, "%s: %s", lead, Summary(vs))
}
