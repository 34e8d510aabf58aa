// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package workflow

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/a2abus/a2abus/internal/fileread"
)

// Templates. A step's text, and every string inside its input, may refer to
// the run's input, its request and earlier steps' outputs with ${…}:
//
//	${input}                   the whole input (after Defaults)
//	${input.cash_flows[0]}     a field of it (.name, [index])
//	${request}                 the original request text
//	${steps.npv.text}          a step's message text
//	${steps.npv.data.npv}      a field of a step's data (its first data part)
//	${steps.npv.confidence}    its confidence; .status its contract status
//
// A string that is exactly one reference takes the referenced JSON value
// (a number stays a number); elsewhere the value is written into the text
// (strings as they are, other values as JSON). A step that did not succeed
// (an optional step that failed, a member canceled once a quorum was
// reached) gives null; a missing field of the input or of a step's data is
// an error of the referring step.
//
// What one step's templates render to — its text and input together — is
// bounded (Options.MaxRenderBytes, workflow.max_render_bytes) while it is
// rendered: a step whose rendering would pass the bound fails with
// ErrRenderTooLarge before the rest is written.

// The roots a reference may start with.
const (
	rootInput   = "input"
	rootRequest = "request"
	rootSteps   = "steps"
)

var refPattern = regexp.MustCompile(`\$\{([^{}]*)\}`)

// ErrRenderTooLarge: a step's templates rendered to more than the bound
// (workflow.max_render_bytes); rendering stopped there.
var ErrRenderTooLarge = errors.New("workflow: rendered request too large")

// ref is one parsed ${…} reference.
type ref struct {
	raw  string // ${…} as written
	root string
	step string // for rootSteps
	path []any  // field names (string) and indexes (int)
}

// parseRef parses the inside of ${…}.
func parseRef(raw, inner string) (ref, error) {
	r := ref{raw: raw}
	s := strings.TrimSpace(inner)
	i := strings.IndexAny(s, ".[")
	if i < 0 {
		r.root, s = s, ""
	} else {
		r.root, s = s[:i], s[i:]
	}
	path, err := parsePath(s)
	if err != nil {
		return r, fmt.Errorf("%s: %w", raw, err)
	}
	switch r.root {
	case rootInput:
		r.path = path
	case rootRequest:
		if len(path) > 0 {
			return r, fmt.Errorf("%s: request is a text and has no fields", raw)
		}
	case rootSteps:
		if len(path) == 0 {
			return r, fmt.Errorf("%s: name a step: ${steps.<id>.text}", raw)
		}
		id, ok := path[0].(string)
		if !ok {
			return r, fmt.Errorf("%s: name a step: ${steps.<id>.text}", raw)
		}
		r.step, r.path = id, path[1:]
		if len(r.path) > 0 {
			f, _ := r.path[0].(string)
			switch f {
			case "text", "data", "status", "confidence", "agent", "warnings":
			default:
				return r, fmt.Errorf("%s: a step's output has text, data, status, confidence, agent and warnings, not %v", raw, r.path[0])
			}
			if f != "data" && len(r.path) > 1 {
				return r, fmt.Errorf("%s: only a step's data has fields", raw)
			}
		}
	default:
		return r, fmt.Errorf("%s: a reference starts with input, request or steps, not %q", raw, r.root)
	}
	return r, nil
}

// parsePath parses ".a.b[2].c" into ["a","b",2,"c"].
func parsePath(s string) ([]any, error) {
	var out []any
	for s != "" {
		switch s[0] {
		case '.':
			s = s[1:]
			end := strings.IndexAny(s, ".[")
			if end < 0 {
				end = len(s)
			}
			name := s[:end]
			if name == "" {
				return nil, fmt.Errorf("empty field name")
			}
			out = append(out, name)
			s = s[end:]
		case '[':
			end := strings.IndexByte(s, ']')
			if end < 0 {
				return nil, fmt.Errorf("unclosed [")
			}
			n, err := strconv.Atoi(s[1:end])
			if err != nil || n < 0 {
				return nil, fmt.Errorf("index %q is not a non-negative integer", s[1:end])
			}
			out = append(out, n)
			s = s[end+1:]
		default:
			return nil, fmt.Errorf("unexpected %q", s)
		}
	}
	return out, nil
}

// references returns the references in text.
func references(text string) ([]ref, error) {
	var out []ref
	for _, m := range refPattern.FindAllStringSubmatch(text, -1) {
		r, err := parseRef(m[0], m[1])
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}

// valueReferences returns the references in every string of v.
func valueReferences(v any) ([]ref, error) {
	var out []ref
	var walk func(any) error
	walk = func(v any) error {
		switch t := v.(type) {
		case string:
			rs, err := references(t)
			out = append(out, rs...)
			return err
		case map[string]any:
			for _, e := range t {
				if err := walk(e); err != nil {
					return err
				}
			}
		case []any:
			for _, e := range t {
				if err := walk(e); err != nil {
					return err
				}
			}
		}
		return nil
	}
	return out, walk(v)
}

// scope is what templates resolve against. One scope renders one step's
// request: what it rendered counts against limit.
type scope struct {
	input   any
	request string
	// outputs of the steps that succeeded; a step that ended otherwise is absent.
	outputs map[string]*Output
	// limit bounds the bytes rendered (text, strings, referenced values as
	// JSON); 0 means no bound. used counts them.
	limit, used int
	// data holds each step's data, decoded once.
	data map[string]any
}

// charge counts n more bytes rendered at ref (a ${…} or "" for literal
// text), or fails with ErrRenderTooLarge once they pass the bound.
func (sc *scope) charge(n int, ref string) error {
	if sc.limit <= 0 {
		return nil
	}
	sc.used += n
	if sc.used <= sc.limit {
		return nil
	}
	at := ""
	if ref != "" {
		at = " at " + ref
	}
	return fmt.Errorf("%w: the step's text and input render to more than workflow.max_render_bytes (%s)%s",
		ErrRenderTooLarge, fileread.Size(int64(sc.limit)), at)
}

// room is how many more bytes may be rendered (the largest int without a bound).
func (sc *scope) room() int {
	if sc.limit <= 0 {
		return int(^uint(0) >> 1)
	}
	return max(sc.limit-sc.used, 0)
}

// resolve returns the value r refers to.
func (sc *scope) resolve(r ref) (any, error) {
	switch r.root {
	case rootRequest:
		return sc.request, nil
	case rootInput:
		return walkPath(r.raw, "the input", sc.input, r.path)
	}
	out, ok := sc.outputs[r.step]
	if !ok {
		return nil, nil // the step did not succeed
	}
	if len(r.path) == 0 {
		return out.templateValue(), nil
	}
	switch r.path[0] {
	case "text":
		return out.Text, nil
	case "status":
		return string(out.Status), nil
	case "confidence":
		return string(out.Confidence), nil
	case "agent":
		return out.Agent, nil
	case "warnings":
		return out.Warnings, nil
	}
	data, cached := sc.data[r.step]
	if !cached && len(out.Data) > 0 {
		if err := json.Unmarshal(out.Data, &data); err != nil {
			return nil, fmt.Errorf("%s: step %q's data: %w", r.raw, r.step, err)
		}
		if sc.data == nil {
			sc.data = map[string]any{}
		}
		sc.data[r.step] = data
	}
	return walkPath(r.raw, fmt.Sprintf("step %q's data", r.step), data, r.path[1:])
}

func walkPath(raw, what string, v any, path []any) (any, error) {
	for i, p := range path {
		switch k := p.(type) {
		case string:
			m, ok := v.(map[string]any)
			if !ok {
				return nil, fmt.Errorf("%s: %s has no field %q (%s is not an object)", raw, what, k, pathString(path[:i]))
			}
			if v, ok = m[k]; !ok {
				return nil, fmt.Errorf("%s: %s has no field %q", raw, what, pathString(path[:i+1]))
			}
		case int:
			a, ok := v.([]any)
			if !ok || k >= len(a) {
				return nil, fmt.Errorf("%s: %s has no element %s", raw, what, pathString(path[:i+1]))
			}
			v = a[k]
		}
	}
	return v, nil
}

func pathString(path []any) string {
	var b strings.Builder
	for _, p := range path {
		if i, ok := p.(int); ok {
			fmt.Fprintf(&b, "[%d]", i)
		} else {
			fmt.Fprintf(&b, ".%s", p)
		}
	}
	if b.Len() == 0 {
		return "the value"
	}
	return strings.TrimPrefix(b.String(), ".")
}

// renderText replaces every reference in text by its value, counting what
// it writes (see charge).
func (sc *scope) renderText(text string) (string, error) {
	locs := refPattern.FindAllStringIndex(text, -1)
	if len(locs) == 0 {
		return text, sc.charge(len(text), "")
	}
	var b strings.Builder
	prev := 0
	for _, loc := range locs {
		if err := sc.charge(loc[0]-prev, ""); err != nil {
			return "", err
		}
		b.WriteString(text[prev:loc[0]])
		m := text[loc[0]:loc[1]]
		prev = loc[1]
		r, err := parseRef(m, m[2:len(m)-1])
		var v any
		if err == nil {
			v, err = sc.resolve(r)
		}
		if err != nil {
			return "", err
		}
		if err := sc.writeValue(&b, v, m); err != nil {
			return "", err
		}
	}
	if err := sc.charge(len(text)-prev, ""); err != nil {
		return "", err
	}
	b.WriteString(text[prev:])
	return b.String(), nil
}

// writeValue writes v into b as textOf does, charging its size before it
// is written (a value is encoded only once it is known to fit).
func (sc *scope) writeValue(b *strings.Builder, v any, ref string) error {
	if s, ok := v.(string); ok {
		if err := sc.charge(len(s), ref); err != nil {
			return err
		}
		b.WriteString(s)
		return nil
	}
	if v == nil {
		return nil
	}
	if err := sc.charge(jsonSize(v, sc.room()+1), ref); err != nil {
		return err
	}
	b.WriteString(textOf(v))
	return nil
}

// renderValue renders every string of v (see Templates), counting what it
// renders (see charge): a string that is one reference counts the size of
// the value it takes.
func (sc *scope) renderValue(v any) (any, error) {
	switch t := v.(type) {
	case string:
		if m := refPattern.FindStringSubmatchIndex(t); m != nil && m[0] == 0 && m[1] == len(t) {
			r, err := parseRef(t, t[2:len(t)-1])
			if err != nil {
				return nil, err
			}
			val, err := sc.resolve(r)
			if err != nil {
				return nil, err
			}
			return val, sc.charge(jsonSize(val, sc.room()+1), t)
		}
		return sc.renderText(t)
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, e := range t {
			if err := sc.charge(len(k), ""); err != nil {
				return nil, err
			}
			c, err := sc.renderValue(e)
			if err != nil {
				return nil, err
			}
			out[k] = c
		}
		return out, nil
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			c, err := sc.renderValue(e)
			if err != nil {
				return nil, err
			}
			out[i] = c
		}
		return out, nil
	default:
		return v, nil
	}
}

// jsonSize is about the length of v's JSON encoding (escapes counted
// roughly), counted without encoding it, for the values templates resolve
// to (decoded JSON, strings, string lists). It stops counting once past
// limit, returning more than limit.
func jsonSize(v any, limit int) int {
	n := 0
	var walk func(any)
	walk = func(v any) {
		if n > limit {
			return
		}
		switch t := v.(type) {
		case nil:
			n += 4
		case bool:
			n += 5
		case float64:
			n += len(strconv.FormatFloat(t, 'g', -1, 64))
		case string:
			n += quotedSize(t)
		case []string:
			n += 2
			for _, e := range t {
				n += quotedSize(e) + 1
			}
		case []any:
			n += 2
			for _, e := range t {
				n++
				walk(e)
			}
		case map[string]any:
			n += 2
			for k, e := range t {
				n += quotedSize(k) + 2
				walk(e)
			}
		default: // not a decoded JSON value: encode it to know
			b, err := json.Marshal(t)
			if err != nil {
				n += len(fmt.Sprint(t))
			} else {
				n += len(b)
			}
		}
	}
	walk(v)
	return n
}

// quotedSize is about the length of s as a JSON string, as encoding/json
// writes it: quotes, two bytes for \" \\ \n \r \t, six for the other
// characters it escapes as \u00XX (decoded JSON and message texts hold
// valid UTF-8: nothing else grows).
func quotedSize(s string) int {
	n := len(s) + 2
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"' || c == '\\' || c == '\n' || c == '\r' || c == '\t':
			n++
		case c < 0x20 || c == '<' || c == '>' || c == '&':
			n += 5
		}
	}
	return n
}

// textOf writes a value into a text: strings as they are, null as "",
// anything else as JSON.
func textOf(v any) string {
	switch t := v.(type) {
	case nil:
		return ""
	case string:
		return t
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}
