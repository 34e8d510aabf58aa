// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package schema

import (
	"encoding/json"
	"fmt"
	"math/big"
	"strings"
	"unicode/utf8"
)

// MaxViolations bounds the violations an INVALID_INPUT message lists.
const MaxViolations = 10

// Violation is one rule of the schema a value breaks, as the registered
// validator reports it (Schema.Check).
type Violation struct {
	// Location is the value's place in the input, one token per level (an
	// object key or an array index); empty for the input itself. A missing
	// required or a forbidden additional property is located at the property.
	Location []string
	// Keyword is the schema keyword broken, e.g. "type", "required", "minItems".
	Keyword string
	// Detail says what the value is and what the rule wants, e.g. "got string, want number".
	Detail string
	// Want and Got are what the rule wants and what the value has, for
	// callers that phrase their own messages, by Keyword: "type" Want
	// []string (the types); "enum" Want []any; "pattern" Want string;
	// "minLength" and "maxLength" Want and Got int; "minimum" and "maximum"
	// Want and Got *big.Rat. Nil for the other keywords.
	Want, Got any
	// Kind is the validator's own description of the violation
	// (pkg/schema/jsonschema: the library's kind); nil when it has none.
	Kind any
	// Value is the offending value (nil for a missing property).
	Value any
}

// Path is the violation's location as a JSON Pointer (RFC 6901), e.g.
// "/cash_flows/0"; "" is the input itself.
func (v Violation) Path() string {
	var b strings.Builder
	for _, tok := range v.Location {
		b.WriteByte('/')
		b.WriteString(strings.NewReplacer("~", "~0", "/", "~1").Replace(tok))
	}
	return b.String()
}

// Rule is the keyword and the detail: "type: got string, want number".
func (v Violation) Rule() string { return v.Keyword + ": " + v.Detail }

// String is the path and the rule; the input itself is shown as "(root)".
func (v Violation) String() string {
	p := v.Path()
	if p == "" {
		p = "(root)"
	}
	return p + ": " + v.Rule()
}

// Summary joins violations with "; ", listing at most MaxViolations and then
// how many more there are.
func Summary(vs []Violation) string {
	parts := make([]string, 0, min(len(vs), MaxViolations)+1)
	for _, v := range vs[:min(len(vs), MaxViolations)] {
		parts = append(parts, v.String())
	}
	if n := len(vs) - MaxViolations; n > 0 {
		parts = append(parts, fmt.Sprintf("and %d more", n))
	}
	return strings.Join(parts, "; ")
}

// maxShown bounds how much of a bad value a message quotes.
const maxShown = 60

// Show renders a JSON value as JSON, cut to 60 bytes (with "…").
func Show(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("%v", v)
	}
	if len(b) > maxShown {
		cut := maxShown
		for cut > 0 && !utf8.RuneStart(b[cut]) {
			cut--
		}
		return string(b[:cut]) + "…"
	}
	return string(b)
}

// FormatNumber renders a number exactly when it is an integer, else as a float.
func FormatNumber(r *big.Rat) string {
	if r == nil {
		return "?"
	}
	if r.IsInt() {
		return r.Num().String()
	}
	f, _ := r.Float64()
	return fmt.Sprint(f)
}
