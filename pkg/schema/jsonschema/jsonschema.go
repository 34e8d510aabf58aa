// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

// Package jsonschema is the JSON Schema validator of pkg/schema, an optional
// part (docs/architecture.md#optional-parts): it compiles schemas with
// github.com/santhosh-tekuri/jsonschema/v6 (draft 2020-12 unless the schema
// names another draft with $schema) and lists their violations, which
// pkg/schema words. A program that compiles or validates schemas calls
// Register once, in main; the library's package initialisation (it compiles
// the draft meta-schemas: 1.7 MB, 21,000 allocations) is then paid by that
// program only.
//
// Compiling never reads a file or the network: $ref resolves only inside
// the schema itself and the meta-schemas the library embeds. A bad schema is
// an error wrapping schema.ErrInvalidSchema, never a panic.
package jsonschema

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	sjs "github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"

	"github.com/a2abus/a2abus/pkg/schema"
)

// errNoLoader: compiling never fetches a referenced document.
var errNoLoader = errors.New("external references are not resolved; keep $ref inside the schema")

// Register makes this package the program's validator (schema.Register):
// schema.Compile, schema.New and what uses them (agent.WithInputSchema, the
// caller's and the directory's checks) compile with it. Call it once, from main.
func Register() {
	schema.Register(func(compact json.RawMessage, hash string) (schema.Validator, error) {
		v, err := compile(compact, hash)
		if err != nil {
			return nil, err // not a nil *validator in a non-nil interface
		}
		return v, nil
	})
}

// validator is a schema compiled by the library: pkg/schema's Validator.
// Safe for concurrent use.
type validator struct {
	compiled *sjs.Schema
}

// compile builds the schema from its compacted form; a panic of the library
// on a hostile schema is returned as schema.ErrInvalidSchema.
func compile(canon json.RawMessage, hash string) (s *validator, err error) {
	defer func() {
		if p := recover(); p != nil {
			s, err = nil, fmt.Errorf("%w: the compiler failed: %v", schema.ErrInvalidSchema, p)
		}
	}()
	doc, err := schema.Decode(canon)
	if err != nil {
		return nil, fmt.Errorf("%w: not valid JSON: %w", schema.ErrInvalidSchema, err)
	}
	c := sjs.NewCompiler()
	c.DefaultDraft(sjs.Draft2020)
	c.UseLoader(noLoader{})
	url := "urn:a2abus:schema:" + hash
	if err := c.AddResource(url, doc); err != nil {
		return nil, fmt.Errorf("%w: %v", schema.ErrInvalidSchema, trimURL(err, url))
	}
	compiled, err := c.Compile(url)
	var meta *sjs.SchemaValidationError
	var ve *sjs.ValidationError
	switch {
	case errors.As(err, &meta) && errors.As(meta.Err, &ve):
		vs := collect(ve, doc, nil)
		slices.SortStableFunc(vs, func(a, b schema.Violation) int { return compareLocations(a.Location, b.Location) })
		return nil, fmt.Errorf("%w: it breaks the JSON Schema meta-schema: %s", schema.ErrInvalidSchema, schema.Summary(vs))
	case err != nil:
		return nil, fmt.Errorf("%w: %v", schema.ErrInvalidSchema, trimURL(err, url))
	}
	out := &validator{compiled: compiled}
	if loc := out.refCycle(); loc != "" {
		return nil, fmt.Errorf("%w: %s", schema.ErrInvalidSchema, loc)
	}
	return out, nil
}

// refCycle returns the description of a $ref cycle that makes validation
// fail whatever the input ({"$ref": "#"}), found by validating a few probe
// values; "" when there is none.
func (s *validator) refCycle() string {
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
