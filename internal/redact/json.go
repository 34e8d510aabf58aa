// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package redact

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strings"
)

// keyRe matches a credential-named key of structured data: its value is
// hidden whole ({"apiKey": "…"}, {"client_secret": 42}).
var keyRe = regexp.MustCompile(`(?i)^[a-z0-9_.-]*(?:password|passwd|pwd|secret|token|api[_-]?key|apikey|access[_-]?key|private[_-]?key|credentials?|authorization|cookie)$`)

// Value returns v with its secrets hidden: every string redacted, and the
// value of a credential-named key of a map (password, token, apiKey, …)
// replaced by Secret when it is a string or a number. Maps and slices
// (map[string]any, []any, []string) are copied only where something
// changes; v itself is never changed. Other types are returned as they are.
func (r *Redactor) Value(v any) any {
	out, _ := r.value(v)
	return out
}

// ValueChanged is Value that also reports whether anything was hidden
// (else it returns v itself).
func (r *Redactor) ValueChanged(v any) (any, bool) { return r.value(v) }

// value is ValueChanged.
func (r *Redactor) value(v any) (any, bool) {
	switch t := v.(type) {
	case string:
		s := r.String(t)
		return s, s != t
	case map[string]any:
		var out map[string]any
		for k, e := range t {
			ne, changed := r.entry(k, e)
			if !changed {
				continue
			}
			if out == nil {
				out = make(map[string]any, len(t))
				for k2, e2 := range t {
					out[k2] = e2
				}
			}
			out[k] = ne
		}
		if out == nil {
			return v, false
		}
		return out, true
	case []any:
		var out []any
		for i, e := range t {
			if ne, changed := r.value(e); changed {
				if out == nil {
					out = append([]any(nil), t...)
				}
				out[i] = ne
			}
		}
		if out == nil {
			return v, false
		}
		return out, true
	case []string:
		var out []string
		for i, e := range t {
			if ne := r.String(e); ne != e {
				if out == nil {
					out = append([]string(nil), t...)
				}
				out[i] = ne
			}
		}
		if out == nil {
			return v, false
		}
		return out, true
	}
	return v, false
}

// entry redacts the value e of key k of a map.
func (r *Redactor) entry(k string, e any) (any, bool) {
	if keyRe.MatchString(k) {
		switch t := e.(type) {
		case string:
			return Secret, t != Secret && t != ""
		case json.Number, float64, int, int64:
			return Secret, true
		}
	}
	return r.value(e)
}

// JSON returns the JSON text b with its secrets hidden as Value hides
// them, read and written again only when the scan finds a candidate (or an
// escape that could hide one), so JSON without secrets is returned as it
// is. The result is valid JSON whenever b is (keys then come sorted);
// text that is not JSON is redacted as text.
func (r *Redactor) JSON(b []byte) []byte {
	if len(b) == 0 {
		return b
	}
	s := string(b)
	if scan(s) == 0 && !strings.Contains(s, `\u`) && (r == nil || len(r.patterns) == 0) {
		return b
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil || dec.More() {
		return []byte(r.String(s))
	}
	nv, changed := r.value(v)
	if !changed {
		return b
	}
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(nv); err != nil {
		return []byte(r.String(s)) // cannot happen: decoded values encode
	}
	return bytes.TrimSuffix(out.Bytes(), []byte("\n"))
}
