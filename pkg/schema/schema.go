// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

// Package schema is the JSON Schema of skills' structured input: it compacts
// and hashes schemas, keeps the compiled ones in a cache, and checks inputs
// against them. The validator itself is an optional part
// (docs/architecture.md#optional-parts): pkg/schema/jsonschema compiles
// with github.com/santhosh-tekuri/jsonschema/v6, and a program that
// compiles or validates schemas registers it once, in main, with
// jsonschema.Register(). Without it, Compile and New return an error
// wrapping ErrNotLinked.
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
	"io"
	"strings"
	"sync/atomic"

	"github.com/a2abus/a2abus/pkg/a2a"
)

// Sentinel errors of the package.
var (
	// ErrInvalidSchema: a schema is not valid JSON, not an object, too large,
	// breaks its meta-schema or refers to something outside itself.
	ErrInvalidSchema = errors.New("schema: invalid schema")
	// ErrNotLinked: a schema was to be compiled in a program that registered
	// no validator (Register). research-agent and examples/go-agent link
	// none, so that what checks no input does not carry the library.
	ErrNotLinked = errors.New("schema: no JSON Schema validator linked")
)

// MaxBytes bounds a schema's size: the wire protocol's limit.
const MaxBytes = a2a.MaxInputSchemaBytes

// Validator is a schema compiled by the registered validator: Check is
// Schema.Check. It is safe for concurrent use.
type Validator interface {
	Check(v any) ([]Violation, error)
}

// Compiler compiles a schema compacted by Compact, whose hash is given; a
// bad schema is an error wrapping ErrInvalidSchema.
type Compiler func(compact json.RawMessage, hash string) (Validator, error)

// compiler is the registered Compiler; nil when none is.
var compiler atomic.Pointer[Compiler]

// Register makes c the program's JSON Schema validator, which Compile and
// New use; the last registration wins. A program calls it once, from main
// (through pkg/schema/jsonschema's Register); nil removes it.
func Register(c Compiler) {
	if c == nil {
		compiler.Store(nil)
		return
	}
	compiler.Store(&c)
}

// Linked reports whether the program registered a validator.
func Linked() bool { return compiler.Load() != nil }

// notLinked is ErrNotLinked, saying what to do.
func notLinked() error {
	return fmt.Errorf("%w (a2abus links one; a program registers one with jsonschema.Register() of github.com/a2abus/a2abus/pkg/schema/jsonschema, in main)", ErrNotLinked)
}

// Schema is a compiled JSON Schema. Safe for concurrent use.
type Schema struct {
	raw      json.RawMessage
	hash     string
	compiled Validator
}

// New compiles raw (a JSON object) without the cache; see Compile.
func New(raw json.RawMessage) (*Schema, error) {
	canon, hash, err := Compact(raw)
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

// Compact compacts raw and hashes it (Schema.Raw and Schema.Hash of the
// schema it compiles to), without compiling it: a schema that is not a JSON
// object of at most MaxBytes is an error wrapping ErrInvalidSchema.
func Compact(raw json.RawMessage) (json.RawMessage, string, error) {
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

// compile builds the schema from its compacted form with the registered
// validator; without one, an error wrapping ErrNotLinked.
func compile(canon json.RawMessage, hash string) (*Schema, error) {
	c := compiler.Load()
	if c == nil {
		return nil, notLinked()
	}
	v, err := (*c)(canon, hash)
	if err != nil {
		return nil, err
	}
	return &Schema{raw: canon, hash: hash, compiled: v}, nil
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

// Decode parses a JSON value the way the validator expects it (numbers as
// json.Number); trailing data is an error.
func Decode(raw json.RawMessage) (any, error) {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	if _, err := d.Token(); err != io.EOF {
		return nil, errors.New("invalid character after top-level value")
	}
	return v, nil
}

// Check validates a value decoded by Decode and returns every violation,
// ordered by location (array indexes numerically). The error is only for a
// failure of the validator itself.
func (s *Schema) Check(v any) ([]Violation, error) { return s.compiled.Check(v) }

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
