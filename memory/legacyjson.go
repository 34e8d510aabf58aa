// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package memory

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"sync"
)

// Every JSON the project stores is camelCase. Values stored before that (a
// workflow run's state, a turn's meta) used snake_case names, and live until
// their TTL ends: UnmarshalLegacyJSON and MetaValue read both spellings, and
// nothing writes the old one. Remove them once no value can be that old.

// UnmarshalLegacyJSON decodes data into v, a pointer to a struct, as
// json.Unmarshal does, and also reads a top-level field from its snake_case
// name ("task_id" for "taskId") when the camelCase one is absent. Call it
// from a type's UnmarshalJSON on a plain alias of the type (so as not to
// recurse); nested types decode through their own UnmarshalJSON.
func UnmarshalLegacyJSON(data []byte, v any) error {
	if bytes.IndexByte(data, '_') < 0 {
		return json.Unmarshal(data, v) // no snake_case name can be there
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(data, &fields); err != nil || fields == nil {
		return json.Unmarshal(data, v) // not an object: json's own answer
	}
	known := jsonNames(reflect.TypeOf(v))
	renamed := false
	for name, raw := range fields {
		if !strings.Contains(name, "_") {
			continue
		}
		camel := snakeToCamel(name)
		if !known[camel] {
			continue
		}
		if _, both := fields[camel]; !both {
			fields[camel] = raw
		}
		delete(fields, name)
		renamed = true
	}
	if !renamed {
		return json.Unmarshal(data, v)
	}
	again, err := json.Marshal(fields)
	if err != nil {
		return err
	}
	return json.Unmarshal(again, v)
}

// MetaValue is meta[key] or, when meta has no key, the value under key's
// snake_case spelling ("task_id" for "taskId"): turns appended before turn
// meta became camelCase carry that until their conversation expires.
func MetaValue(meta map[string]string, key string) string {
	if v, ok := meta[key]; ok {
		return v
	}
	if old := CamelToSnake(key); old != key {
		return meta[old]
	}
	return ""
}

// CamelToSnake is the snake_case spelling of a camelCase name: "taskId" →
// "task_id", "a2aTask" → "a2a_task".
func CamelToSnake(name string) string {
	var b strings.Builder
	for i := 0; i < len(name); i++ {
		c := name[i]
		if 'A' <= c && c <= 'Z' {
			b.WriteByte('_')
			c += 'a' - 'A'
		}
		b.WriteByte(c)
	}
	return b.String()
}

// snakeToCamel is the camelCase spelling of a snake_case name: "task_id" →
// "taskId".
func snakeToCamel(name string) string {
	var b strings.Builder
	upper := false
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case c == '_':
			upper = b.Len() > 0
			continue
		case upper && 'a' <= c && c <= 'z':
			c -= 'a' - 'A'
		}
		upper = false
		b.WriteByte(c)
	}
	return b.String()
}

var jsonNamesCache sync.Map // reflect.Type → map[string]bool

// jsonNames are the JSON names of the fields of the struct t points to,
// embedded structs' included.
func jsonNames(t reflect.Type) map[string]bool {
	if cached, ok := jsonNamesCache.Load(t); ok {
		return cached.(map[string]bool)
	}
	names := map[string]bool{}
	st := t
	for st.Kind() == reflect.Pointer {
		st = st.Elem()
	}
	if st.Kind() == reflect.Struct {
		addJSONNames(st, names)
	}
	jsonNamesCache.Store(t, names)
	return names
}

func addJSONNames(t reflect.Type, names map[string]bool) {
	for f := range t.Fields() {
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, _, _ := strings.Cut(tag, ",")
		ft := f.Type
		for ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		if f.Anonymous && name == "" && ft.Kind() == reflect.Struct {
			addJSONNames(ft, names)
			continue
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		names[name] = true
	}
}
