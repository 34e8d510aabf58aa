// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package testenv

import (
	"encoding/json"
	"fmt"
	"reflect"
	"regexp"
	"sort"
	"strings"
)

// camelCase is the project's JSON name rule (docs/memory.md): a lower-case
// letter, then letters and digits.
var camelCase = regexp.MustCompile(`^[a-z][a-zA-Z0-9]*$`)

const modulePath = "github.com/a2abus/a2abus/"

// NotCamelCaseJSON returns the JSON names of v that break the project's
// camelCase rule, each with where it was found: the json names of v's type
// and of the project's types it holds (struct fields through pointers,
// slices, arrays and maps; a type with its own MarshalJSON is judged by its
// encoding), and every object key of v's JSON encoding (map keys and other
// modules' types included). Fill v with what it holds in use.
func NotCamelCaseJSON(v any) []string {
	bad := map[string]bool{}
	walkType(reflect.TypeOf(v), map[reflect.Type]bool{}, bad)
	raw, err := json.Marshal(v)
	if err != nil {
		return []string{fmt.Sprintf("marshal %T: %v", v, err)}
	}
	var doc any
	if err := json.Unmarshal(raw, &doc); err != nil {
		return []string{fmt.Sprintf("decode the JSON of %T: %v", v, err)}
	}
	walkJSON(doc, "$", bad)
	out := make([]string, 0, len(bad))
	for b := range bad {
		out = append(out, b)
	}
	sort.Strings(out)
	return out
}

var marshaler = reflect.TypeFor[json.Marshaler]()

func walkType(t reflect.Type, seen map[reflect.Type]bool, bad map[string]bool) {
	if t == nil || seen[t] {
		return
	}
	seen[t] = true
	switch t.Kind() {
	case reflect.Pointer, reflect.Slice, reflect.Array:
		walkType(t.Elem(), seen, bad)
		return
	case reflect.Map:
		walkType(t.Elem(), seen, bad)
		return
	case reflect.Struct:
	default:
		return
	}
	if !strings.HasPrefix(t.PkgPath()+"/", modulePath) || t.Implements(marshaler) || reflect.PointerTo(t).Implements(marshaler) {
		return // another module's type, or one that encodes itself: its encoding is scanned
	}
	for f := range t.Fields() {
		tag := f.Tag.Get("json")
		if tag == "-" || !f.IsExported() && !f.Anonymous {
			continue
		}
		name, _, _ := strings.Cut(tag, ",")
		if f.Anonymous && name == "" {
			walkType(f.Type, seen, bad)
			continue
		}
		if name == "" {
			name = f.Name
		}
		if !camelCase.MatchString(name) {
			bad[fmt.Sprintf("%s.%s: json name %q", t, f.Name, name)] = true
		}
		walkType(f.Type, seen, bad)
	}
}

func walkJSON(v any, path string, bad map[string]bool) {
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			if !camelCase.MatchString(k) {
				bad[fmt.Sprintf("%s: key %q", path, k)] = true
			}
			walkJSON(e, path+"."+k, bad)
		}
	case []any:
		for _, e := range v {
			walkJSON(e, path+"[]", bad)
		}
	}
}
