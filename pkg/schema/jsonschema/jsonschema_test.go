// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package jsonschema

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/schema"
)

// npvSchema is SampleAgent.npv's input schema.
const npvSchema = `{
  "type": "object",
  "properties": {
    "cash_flows": {"type": "array", "items": {"type": "number"}, "minItems": 1},
    "discount_rate": {"type": "number", "exclusiveMinimum": -1}
  },
  "required": ["cash_flows", "discount_rate"],
  "additionalProperties": false
}`

// mustCompile compiles raw through pkg/schema, with this package registered.
func mustCompile(t *testing.T, raw string) *schema.Schema {
	t.Helper()
	s, err := schema.New(json.RawMessage(raw))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// invalid returns the *a2a.Error of Validate, failing unless it is INVALID_INPUT.
func invalid(t *testing.T, s *schema.Schema, input string) *a2a.Error {
	t.Helper()
	var in json.RawMessage
	if input != "" {
		in = json.RawMessage(input)
	}
	err := s.Validate(in)
	var e *a2a.Error
	if !errors.As(err, &e) || e.Code != a2a.CodeInvalidInput || e.Retryable {
		t.Fatalf("Validate(%s) = %v, want a non-retryable INVALID_INPUT", input, err)
	}
	return e
}

func TestValidateNamesPathAndRule(t *testing.T) {
	s := mustCompile(t, npvSchema)
	for _, tc := range []struct {
		name, input string
		want        []string // in this order in the message
	}{
		{"wrong type", `{"cash_flows":[1],"discount_rate":"12%"}`, []string{`/discount_rate: type: got string, want number`}},
		{"missing both", `{}`, []string{`/cash_flows: required: missing`, `/discount_rate: required: missing`}},
		{"empty array", `{"cash_flows":[],"discount_rate":0.1}`, []string{`/cash_flows: minItems: got 0 items, want at least 1`}},
		{"item type", `{"cash_flows":[1,"x",3,true],"discount_rate":0.1}`,
			[]string{`/cash_flows/1: type: got string, want number`, `/cash_flows/3: type: got boolean, want number`}},
		{"rate too low", `{"cash_flows":[1],"discount_rate":-1}`, []string{`/discount_rate: exclusiveMinimum: got -1, want > -1`}},
		{"extra property", `{"cash_flows":[1],"discount_rate":0.1,"periods":"annual"}`, []string{`/periods: additionalProperties: not allowed`}},
		{"not an object", `[1,2]`, []string{`(root): type: got array, want object`}},
		{"all at once", `{"cash_flows":"none","discount_rate":-2,"x":1}`,
			[]string{`/cash_flows: type: got string, want array`, `/discount_rate: exclusiveMinimum: got -2, want > -1`, `/x: additionalProperties: not allowed`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			msg := invalid(t, s, tc.input).Message
			at := 0
			for _, w := range tc.want {
				i := strings.Index(msg[at:], w)
				if i < 0 {
					t.Fatalf("message %q does not contain %q (after byte %d)", msg, w, at)
				}
				at += i + len(w)
			}
		})
	}
}

func TestValidAndAbsentInput(t *testing.T) {
	s := mustCompile(t, npvSchema)
	if err := s.Validate(json.RawMessage(` {"cash_flows":[-100, 60, 60.5],"discount_rate":0.12} `)); err != nil {
		t.Fatalf("valid input refused: %v", err)
	}
	// Absent input is checked as null: refused by an object schema...
	e := invalid(t, s, "")
	if !strings.Contains(e.Message, "structured input is required") || !strings.Contains(e.Message, "(root): type: got null, want object") {
		t.Fatalf("absent input: %q", e.Message)
	}
	// ...accepted by a schema that allows null.
	if err := mustCompile(t, `{"type":["object","null"]}`).Validate(nil); err != nil {
		t.Fatalf("a schema accepting null refused absent input: %v", err)
	}
	if e := invalid(t, s, `{"cash_flows":`); !strings.Contains(e.Message, "not valid JSON") {
		t.Fatalf("truncated input: %q", e.Message)
	}
}

func TestOtherRules(t *testing.T) {
	for _, tc := range []struct{ schema, input, want string }{
		{`{"enum":["high","low"]}`, `"mid"`, `(root): enum: got "mid", want one of "high", "low"`},
		{`{"const":3}`, `4`, `(root): const: got 4, want 3`},
		{`{"minimum":1}`, `0`, `minimum: got 0, want >= 1`},
		{`{"maximum":1.5}`, `2`, `maximum: got 2, want <= 1.5`},
		{`{"exclusiveMaximum":1}`, `1`, `exclusiveMaximum: got 1, want < 1`},
		{`{"multipleOf":2}`, `3`, `multipleOf: got 3, want a multiple of 2`},
		{`{"maxItems":1}`, `[1,2]`, `maxItems: got 2 items, want at most 1`},
		{`{"minLength":2}`, `"a"`, `minLength: got 1 characters, want at least 2`},
		{`{"maxLength":1}`, `"ab"`, `maxLength: got 2 characters, want at most 1`},
		{`{"pattern":"^[a-z]+$"}`, `"A1"`, `pattern: got "A1", want a match of ^[a-z]+$`},
		{`{"uniqueItems":true}`, `[1,2,1]`, `uniqueItems: items 0 and 2 are equal`},
		{`{"minProperties":1}`, `{}`, `minProperties: got 0 properties, want at least 1`},
		{`{"items":false}`, `[1]`, `/0: false: got 1, want no value here`},
		{`{"not":{"type":"string"}}`, `"x"`, `not: got "x", which matches a schema it must not`},
		{`{"properties":{"a~b/c":{"type":"integer"}}}`, `{"a~b/c":1.5}`, `/a~0b~1c: type: got number, want integer`},
		{`{"dependentRequired":{"a":["b"]}}`, `{"a":1}`, `dependentRequired: missing "b", required when "a" is present`},
		{`{"anyOf":[{"type":"string"},{"type":"number"}]}`, `true`,
			`(root): anyOf: got true, which matches none of the alternatives ((root): type: got boolean, want string; (root): type: got boolean, want number)`},
		{`{"oneOf":[{"type":"number"},{"minimum":0}]}`, `1`, `oneOf: got 1, which matches alternatives 0 and 1, want exactly one`},
		{`{"$defs":{"pos":{"minimum":0}},"properties":{"n":{"$ref":"#/$defs/pos"}}}`, `{"n":-1}`, `/n: minimum: got -1, want >= 0`},
		{`{"properties":{"child":{"$ref":"#"}},"required":["id"]}`, `{"id":1,"child":{"child":{}}}`, `/child/child/id: required: missing`},
	} {
		t.Run(tc.schema, func(t *testing.T) {
			if msg := invalid(t, mustCompile(t, tc.schema), tc.input).Message; !strings.Contains(msg, tc.want) {
				t.Fatalf("message %q does not contain %q", msg, tc.want)
			}
		})
	}
}

func TestViolationsAreBounded(t *testing.T) {
	s := mustCompile(t, `{"type":"array","items":{"type":"string"}}`)
	items := make([]string, 25)
	for i := range items {
		items[i] = fmt.Sprint(i)
	}
	msg := invalid(t, s, "["+strings.Join(items, ",")+"]").Message
	if n := strings.Count(msg, "type: got"); n != schema.MaxViolations {
		t.Fatalf("message lists %d violations, want %d: %q", n, schema.MaxViolations, msg)
	}
	// Ordered numerically, then the rest counted.
	if !strings.Contains(msg, "/0: type") || !strings.Contains(msg, "/9: type") || strings.Contains(msg, "/10: type") ||
		!strings.HasSuffix(msg, "; and 15 more") {
		t.Fatalf("message %q", msg)
	}
	v, _ := schema.Decode(json.RawMessage("[" + strings.Join(items, ",") + "]"))
	if vs, err := s.Check(v); err != nil || len(vs) != 25 {
		t.Fatalf("Check = %d violations, %v; want all 25", len(vs), err)
	}
}

func TestBadSchemas(t *testing.T) {
	for _, tc := range []struct{ name, schema, want string }{
		{"empty", ``, "empty"},
		{"not JSON", `{"type":`, "not valid JSON"},
		{"not an object", `true`, "JSON object"},
		{"array", `[{"type":"string"}]`, "JSON object"},
		{"bad keyword value", `{"type":5}`, "meta-schema: /type: anyOf: got 5"},
		{"bad regexp", `{"pattern":"(("}`, "meta-schema: /pattern"},
		{"dangling ref", `{"$ref":"#/$defs/nope"}`, "not found"},
		{"ref cycle", `{"$ref":"#"}`, "reference cycle: #/$ref and # resolve to the same schema"},
		{"indirect ref cycle", `{"$defs":{"a":{"$ref":"#/$defs/a"}},"$ref":"#/$defs/a"}`, "reference cycle"},
		{"unknown draft", `{"$schema":"https://example.com/my-draft"}`, ""},
		{"remote ref", `{"$ref":"https://example.com/schema.json"}`, "external references"},
		{"file ref", `{"$ref":"file:///etc/passwd"}`, "external references"},
		{"too large", `{"description":"` + strings.Repeat("x", schema.MaxBytes) + `"}`, "at most"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := schema.New(json.RawMessage(tc.schema))
			if s != nil || !errors.Is(err, schema.ErrInvalidSchema) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("New = %v, %v; want ErrInvalidSchema mentioning %q", s, err, tc.want)
			}
			if _, err := schema.Compile(json.RawMessage(tc.schema)); !errors.Is(err, schema.ErrInvalidSchema) {
				t.Fatalf("Compile = %v, want ErrInvalidSchema", err)
			}
		})
	}
}
