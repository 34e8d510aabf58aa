// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package a2a

import (
	"encoding/base64"
	"encoding/json"
	"math"
	"slices"
	"strconv"
	"time"
)

// The hand-written writer's JSON values (wireenc.go writes the payloads with
// them): each appends exactly the bytes encoding/json writes for the value,
// HTML escaping on, or marks the writer failed where encoding/json would
// fail, so that the caller encodes the payload the standard way instead.

// jsonWriter appends one JSON document.
type jsonWriter struct {
	b      []byte
	failed bool // a value encoding/json would refuse: the caller falls back to it
}

// key writes a member's key (plain ASCII: no escaping needed), after a
// comma unless it is the object's first.
func (w *jsonWriter) key(k string) {
	if n := len(w.b); n > 0 && w.b[n-1] != '{' {
		w.b = append(w.b, ',')
	}
	w.b = append(w.b, '"')
	w.b = append(w.b, k...)
	w.b = append(w.b, '"', ':')
}

// str writes a string member.
func (w *jsonWriter) str(k, s string) {
	w.key(k)
	w.b = AppendJSONString(w.b, s)
}

// strOmit writes a string member unless it is empty (omitempty).
func (w *jsonWriter) strOmit(k, s string) {
	if s != "" {
		w.str(k, s)
	}
}

// intOmit writes an integer member unless it is 0 (omitempty).
func (w *jsonWriter) intOmit(k string, n int64) {
	if n != 0 {
		w.key(k)
		w.b = strconv.AppendInt(w.b, n, 10)
	}
}

// strings writes a list of strings (nil as null).
func (w *jsonWriter) strings(ss []string) {
	list(w, ss, func(s string) { w.b = AppendJSONString(w.b, s) })
}

// list writes items as an array, each by write (nil as null).
func list[T any](w *jsonWriter, items []T, write func(T)) {
	if items == nil {
		w.b = append(w.b, "null"...)
		return
	}
	w.b = append(w.b, '[')
	for i, item := range items {
		if i > 0 {
			w.b = append(w.b, ',')
		}
		write(item)
	}
	w.b = append(w.b, ']')
}

// stringsOmit writes a list of strings unless it is empty (omitempty).
func (w *jsonWriter) stringsOmit(k string, ss []string) {
	if len(ss) > 0 {
		w.key(k)
		w.strings(ss)
	}
}

// time writes a time member as Time.MarshalJSON does; a time it refuses
// (a year outside 0–9999, an offset of a day or more) fails the writer.
func (w *jsonWriter) time(k string, t time.Time) {
	w.key(k)
	w.b = append(w.b, '"')
	b, err := t.AppendText(w.b)
	if err != nil {
		w.failed = true
		return
	}
	w.b = append(b, '"')
}

// raw writes a json.RawMessage member unless it is empty (omitempty), as
// encoding/json does: compacted, with <, >, &, U+2028 and U+2029 escaped.
func (w *jsonWriter) raw(k string, m json.RawMessage) {
	if len(m) == 0 {
		return
	}
	w.key(k)
	for _, c := range m {
		switch c {
		case ' ', '\t', '\n', '\r', '<', '>', '&', 0xE2: // something to compact or escape
			w.marshal(m)
			return
		}
	}
	if !json.Valid(m) {
		w.failed = true
		return
	}
	w.b = append(w.b, m...)
}

// bytes writes a []byte as encoding/json does: base64, nil as null.
func (w *jsonWriter) bytes(b []byte) {
	if b == nil {
		w.b = append(w.b, "null"...)
		return
	}
	w.b = append(w.b, '"')
	w.b = base64.StdEncoding.AppendEncode(w.b, b)
	w.b = append(w.b, '"')
}

// maxAnyDepth is how deep the writer follows nested maps and lists of an
// any value before it hands the rest to encoding/json (which finds a cycle).
const maxAnyDepth = 32

// anyValue writes a value of a data part or a metadata map: the types
// encoding/json decodes into (nil, string, bool, float64, map[string]any,
// []any) by hand, any other through json.Marshal, whose bytes for a value
// are the same at the top as nested.
func (w *jsonWriter) anyValue(v any, depth int) {
	if depth > maxAnyDepth {
		w.marshal(v)
		return
	}
	switch v := v.(type) {
	case nil:
		w.b = append(w.b, "null"...)
	case string:
		w.b = AppendJSONString(w.b, v)
	case bool:
		w.b = strconv.AppendBool(w.b, v)
	case float64:
		w.float(v)
	case map[string]any:
		w.object(v, depth)
	case []any:
		list(w, v, func(e any) { w.anyValue(e, depth+1) })
	default:
		w.marshal(v)
	}
}

// object writes a map with its keys sorted, as encoding/json does (nil as null).
func (w *jsonWriter) object(m map[string]any, depth int) {
	if m == nil {
		w.b = append(w.b, "null"...)
		return
	}
	var arr [8]string
	keys := arr[:0]
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	w.b = append(w.b, '{')
	for i, k := range keys {
		if i > 0 {
			w.b = append(w.b, ',')
		}
		w.b = AppendJSONString(w.b, k)
		w.b = append(w.b, ':')
		w.anyValue(m[k], depth+1)
	}
	w.b = append(w.b, '}')
}

// objectOmit writes a map member unless it is empty (omitempty).
func (w *jsonWriter) objectOmit(k string, m map[string]any) {
	if len(m) > 0 {
		w.key(k)
		w.object(m, 0)
	}
}

// float writes a float64 as encoding/json does (ES6 style); NaN and the
// infinities, which it refuses, fail the writer.
func (w *jsonWriter) float(f float64) {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		w.failed = true
		return
	}
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	w.b = strconv.AppendFloat(w.b, f, format, -1, 64)
	if n := len(w.b); format == 'e' && n >= 4 && w.b[n-4] == 'e' && w.b[n-3] == '-' && w.b[n-2] == '0' {
		w.b[n-2] = w.b[n-1] // e-09 → e-9
		w.b = w.b[:n-1]
	}
}

// marshal writes v through encoding/json; its error fails the writer.
func (w *jsonWriter) marshal(v any) {
	b, err := json.Marshal(v)
	if err != nil {
		w.failed = true
		return
	}
	w.b = append(w.b, b...)
}
