package workflow

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
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

// The roots a reference may start with.
const (
	rootInput   = "input"
	rootRequest = "request"
	rootSteps   = "steps"
)

var refPattern = regexp.MustCompile(`\$\{([^{}]*)\}`)

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

// scope is what templates resolve against.
type scope struct {
	input   any
	request string
	// outputs of the steps that succeeded; a step that ended otherwise is absent.
	outputs map[string]*Output
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
	var data any
	if len(out.Data) > 0 {
		if err := json.Unmarshal(out.Data, &data); err != nil {
			return nil, fmt.Errorf("%s: step %q's data: %w", r.raw, r.step, err)
		}
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

// renderText replaces every reference in text by its value.
func (sc *scope) renderText(text string) (string, error) {
	var firstErr error
	out := refPattern.ReplaceAllStringFunc(text, func(m string) string {
		r, err := parseRef(m, m[2:len(m)-1])
		var v any
		if err == nil {
			v, err = sc.resolve(r)
		}
		if err != nil {
			if firstErr == nil {
				firstErr = err
			}
			return m
		}
		return textOf(v)
	})
	return out, firstErr
}

// renderValue renders every string of v (see Templates).
func (sc *scope) renderValue(v any) (any, error) {
	switch t := v.(type) {
	case string:
		if m := refPattern.FindStringSubmatchIndex(t); m != nil && m[0] == 0 && m[1] == len(t) {
			r, err := parseRef(t, t[2:len(t)-1])
			if err != nil {
				return nil, err
			}
			return sc.resolve(r)
		}
		return sc.renderText(t)
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, e := range t {
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
