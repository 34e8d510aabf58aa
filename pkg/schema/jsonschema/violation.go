// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package jsonschema

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	sjs "github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"github.com/a2abus/a2abus/pkg/schema"
)

// maxAlternatives bounds the failed branches an anyOf or oneOf violation quotes.
const maxAlternatives = 3

// Check validates a value decoded by schema.Decode and returns every
// violation, ordered by location (array indexes numerically). The error is
// only for a failure of the validator itself.
func (s *validator) Check(v any) (vs []schema.Violation, err error) {
	defer func() {
		if p := recover(); p != nil {
			vs, err = nil, fmt.Errorf("schema: validator failed: %v", p)
		}
	}()
	verr := s.compiled.Validate(v)
	if verr == nil {
		return nil, nil
	}
	var ve *sjs.ValidationError
	if !errors.As(verr, &ve) {
		return nil, fmt.Errorf("schema: validate: %w", verr)
	}
	vs = collect(ve, v, nil)
	slices.SortStableFunc(vs, func(a, b schema.Violation) int { return compareLocations(a.Location, b.Location) })
	return vs, nil
}

// collect turns the leaves of e's tree into violations. An anyOf or oneOf
// that failed is one violation: its branches' violations only explain it.
func collect(e *sjs.ValidationError, root any, out []schema.Violation) []schema.Violation {
	switch e.ErrorKind.(type) {
	case *kind.AnyOf, *kind.OneOf:
		if len(e.Causes) > 0 {
			return append(out, alternatives(e, root))
		}
	}
	if len(e.Causes) == 0 {
		return append(out, explain(e, root)...)
	}
	for _, c := range e.Causes {
		out = collect(c, root, out)
	}
	return out
}

// alternatives describes an anyOf or oneOf none of whose branches matched.
func alternatives(e *sjs.ValidationError, root any) schema.Violation {
	value := lookup(root, e.InstanceLocation)
	var why []schema.Violation
	for _, c := range e.Causes {
		why = collect(c, root, why)
	}
	reasons := make([]string, 0, maxAlternatives)
	for _, w := range why[:min(len(why), maxAlternatives)] {
		reasons = append(reasons, w.String())
	}
	detail := fmt.Sprintf("got %s, which matches none of the alternatives (%s)", schema.Show(value), strings.Join(reasons, "; "))
	return schema.Violation{Location: e.InstanceLocation, Keyword: e.ErrorKind.KeywordPath()[0], Detail: detail, Kind: e.ErrorKind, Value: value}
}

// explain turns one leaf into violations: one per missing or forbidden
// property, else one for the value at the leaf's location.
func explain(e *sjs.ValidationError, root any) []schema.Violation {
	at := func(name string) []string { return append(slices.Clip(e.InstanceLocation), name) }
	switch k := e.ErrorKind.(type) {
	case *kind.Required:
		out := make([]schema.Violation, len(k.Missing))
		for i, name := range k.Missing {
			out[i] = schema.Violation{Location: at(name), Keyword: "required", Detail: "missing", Kind: k}
		}
		return out
	case *kind.AdditionalProperties:
		out := make([]schema.Violation, len(k.Properties))
		obj, _ := lookup(root, e.InstanceLocation).(map[string]any)
		for i, name := range k.Properties {
			out[i] = schema.Violation{Location: at(name), Keyword: "additionalProperties", Detail: "not allowed", Kind: k, Value: obj[name]}
		}
		return out
	case *kind.DependentRequired:
		return []schema.Violation{{Location: e.InstanceLocation, Keyword: "dependentRequired", Kind: k, Value: lookup(root, e.InstanceLocation),
			Detail: fmt.Sprintf("missing %s, required when %q is present", quoteAll(k.Missing), k.Prop)}}
	}
	value := lookup(root, e.InstanceLocation)
	keyword, detail := rule(e.ErrorKind, value)
	want, got := bounds(e.ErrorKind)
	return []schema.Violation{{Location: e.InstanceLocation, Keyword: keyword, Detail: detail, Want: want, Got: got, Kind: e.ErrorKind, Value: value}}
}

// bounds are a violation's Want and Got, for the keywords schema.Violation
// lists them for.
func bounds(k sjs.ErrorKind) (want, got any) {
	switch k := k.(type) {
	case *kind.Type:
		return k.Want, nil
	case *kind.Enum:
		return k.Want, nil
	case *kind.Pattern:
		return k.Want, nil
	case *kind.MinLength:
		return k.Want, k.Got
	case *kind.MaxLength:
		return k.Want, k.Got
	case *kind.Minimum:
		return k.Want, k.Got
	case *kind.Maximum:
		return k.Want, k.Got
	}
	return nil, nil
}

// rule names the keyword an error kind breaks and says what the value is
// and what the keyword wants.
func rule(k sjs.ErrorKind, value any) (keyword, detail string) {
	switch k := k.(type) {
	case *kind.Type:
		return "type", fmt.Sprintf("got %s, want %s", k.Got, strings.Join(k.Want, " or "))
	case *kind.Enum:
		want := make([]string, len(k.Want))
		for i, w := range k.Want {
			want[i] = schema.Show(w)
		}
		return "enum", fmt.Sprintf("got %s, want one of %s", schema.Show(value), strings.Join(want, ", "))
	case *kind.Const:
		return "const", fmt.Sprintf("got %s, want %s", schema.Show(value), schema.Show(k.Want))
	case *kind.Minimum:
		return "minimum", fmt.Sprintf("got %s, want >= %s", schema.FormatNumber(k.Got), schema.FormatNumber(k.Want))
	case *kind.Maximum:
		return "maximum", fmt.Sprintf("got %s, want <= %s", schema.FormatNumber(k.Got), schema.FormatNumber(k.Want))
	case *kind.ExclusiveMinimum:
		return "exclusiveMinimum", fmt.Sprintf("got %s, want > %s", schema.FormatNumber(k.Got), schema.FormatNumber(k.Want))
	case *kind.ExclusiveMaximum:
		return "exclusiveMaximum", fmt.Sprintf("got %s, want < %s", schema.FormatNumber(k.Got), schema.FormatNumber(k.Want))
	case *kind.MultipleOf:
		return "multipleOf", fmt.Sprintf("got %s, want a multiple of %s", schema.FormatNumber(k.Got), schema.FormatNumber(k.Want))
	case *kind.MinItems:
		return "minItems", fmt.Sprintf("got %d items, want at least %d", k.Got, k.Want)
	case *kind.MaxItems:
		return "maxItems", fmt.Sprintf("got %d items, want at most %d", k.Got, k.Want)
	case *kind.MinLength:
		return "minLength", fmt.Sprintf("got %d characters, want at least %d", k.Got, k.Want)
	case *kind.MaxLength:
		return "maxLength", fmt.Sprintf("got %d characters, want at most %d", k.Got, k.Want)
	case *kind.MinProperties:
		return "minProperties", fmt.Sprintf("got %d properties, want at least %d", k.Got, k.Want)
	case *kind.MaxProperties:
		return "maxProperties", fmt.Sprintf("got %d properties, want at most %d", k.Got, k.Want)
	case *kind.Pattern:
		return "pattern", fmt.Sprintf("got %s, want a match of %s", schema.Show(k.Got), k.Want)
	case *kind.UniqueItems:
		return "uniqueItems", fmt.Sprintf("items %d and %d are equal", k.Duplicates[0], k.Duplicates[1])
	case *kind.FalseSchema:
		return "false", fmt.Sprintf("got %s, want no value here", schema.Show(value))
	case *kind.OneOf:
		if len(k.Subschemas) > 1 {
			return "oneOf", fmt.Sprintf("got %s, which matches alternatives %d and %d, want exactly one", schema.Show(value), k.Subschemas[0], k.Subschemas[1])
		}
		return "oneOf", fmt.Sprintf("got %s, which matches none of the alternatives", schema.Show(value))
	case *kind.RefCycle:
		return "$ref", fmt.Sprintf("reference cycle: #%s and #%s resolve to the same schema", k.KeywordLocation1, k.KeywordLocation2)
	case *kind.Not:
		return "not", fmt.Sprintf("got %s, which matches a schema it must not", schema.Show(value))
	}
	keyword = strings.Join(k.KeywordPath(), "/")
	if keyword == "" {
		keyword = "schema"
	}
	return keyword, k.LocalizedString(message.NewPrinter(language.English))
}

// compareLocations orders locations token by token, array indexes numerically.
func compareLocations(a, b []string) int {
	for i := range min(len(a), len(b)) {
		if a[i] == b[i] {
			continue
		}
		x, errX := strconv.Atoi(a[i])
		y, errY := strconv.Atoi(b[i])
		if errX == nil && errY == nil {
			return cmp.Compare(x, y)
		}
		return strings.Compare(a[i], b[i])
	}
	return cmp.Compare(len(a), len(b))
}

// lookup returns the value at loc inside v (objects by key, arrays by index), or nil.
func lookup(v any, loc []string) any {
	for _, tok := range loc {
		switch c := v.(type) {
		case map[string]any:
			v = c[tok]
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(c) {
				return nil
			}
			v = c[i]
		default:
			return nil
		}
	}
	return v
}

func quoteAll(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = strconv.Quote(n)
	}
	return strings.Join(q, ", ")
}
