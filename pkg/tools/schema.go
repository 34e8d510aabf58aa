package tools

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"github.com/a2abus/a2abus/pkg/a2a"
)

// Patterns of the names in the schemas: the rules of pkg/a2a
// (a2a.ValidateAgentName, a2a.ValidateSkillID).
const (
	agentNamePattern = a2a.AgentNameRegexp
	agentNameHint    = "a letter, then up to 63 letters, digits, '_' or '-'"
	skillIDPattern   = a2a.SkillIDRegexp
	skillIDHint      = "a letter or digit, then up to 63 letters, digits, '_', '.' or '-'"
)

// param is one argument of a tool.
type param struct {
	name     string
	required bool
	schema   map[string]any // the argument's JSON Schema
	hint     string         // what the schema's pattern means, in words
}

// argSchema is a tool's arguments schema, compiled once, with what is needed
// to explain a violation.
type argSchema struct {
	tool     string
	params   []param
	raw      json.RawMessage
	compiled *jsonschema.Schema
}

// newArgSchema builds the JSON Schema (draft 2020-12) of an object with
// params as its only properties, in their order, and compiles it.
func newArgSchema(tool string, params []param) (*argSchema, error) {
	var b bytes.Buffer
	b.WriteString(`{"type":"object","properties":{`)
	var required []string
	for i, p := range params {
		if i > 0 {
			b.WriteByte(',')
		}
		name, _ := json.Marshal(p.name)
		prop, err := json.Marshal(p.schema)
		if err != nil {
			return nil, fmt.Errorf("tools: %s: encode schema of %q: %w", tool, p.name, err)
		}
		b.Write(name)
		b.WriteByte(':')
		b.Write(prop)
		if p.required {
			required = append(required, p.name)
		}
	}
	req, _ := json.Marshal(append([]string{}, required...))
	fmt.Fprintf(&b, `},"required":%s,"additionalProperties":false}`, req)

	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(b.Bytes()))
	if err != nil {
		return nil, fmt.Errorf("tools: %s: decode schema: %w", tool, err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	url := "urn:a2abus:tools:" + tool
	if err := c.AddResource(url, doc); err != nil {
		return nil, fmt.Errorf("tools: %s: add schema: %w", tool, err)
	}
	compiled, err := c.Compile(url)
	if err != nil {
		return nil, fmt.Errorf("tools: %s: compile schema: %w", tool, err)
	}
	return &argSchema{tool: tool, params: params, raw: b.Bytes(), compiled: compiled}, nil
}

// validate checks args against the schema. Empty args mean {}. It returns
// nil, one *ArgumentError, or several joined (errors.As finds the first).
func (s *argSchema) validate(args json.RawMessage) error {
	args = bytes.TrimSpace(args)
	if len(args) == 0 {
		args = json.RawMessage("{}")
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(args))
	if err != nil {
		var syn *json.SyntaxError
		detail := err.Error()
		if errors.As(err, &syn) {
			detail = fmt.Sprintf("%s (at byte %d)", detail, syn.Offset)
		}
		return s.argErr("", "the arguments are not a JSON object: "+detail, nil)
	}
	if _, ok := v.(map[string]any); !ok {
		return s.argErr("", "the arguments are not a JSON object: got "+show(v), nil)
	}
	err = s.compiled.Validate(v)
	if err == nil {
		return nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return fmt.Errorf("tools: %s: validate arguments: %w", s.tool, err)
	}
	var problems []*ArgumentError
	for _, leaf := range leaves(ve, nil) {
		problems = append(problems, s.explain(leaf, v)...)
	}
	slices.SortStableFunc(problems, func(a, b *ArgumentError) int { return s.rank(a.Path) - s.rank(b.Path) })
	errs := make([]error, len(problems))
	for i, p := range problems {
		errs[i] = p
	}
	if len(errs) == 1 {
		return errs[0]
	}
	return errors.Join(errs...)
}

// leaves collects the errors of e's tree that have no causes.
func leaves(e *jsonschema.ValidationError, out []*jsonschema.ValidationError) []*jsonschema.ValidationError {
	if len(e.Causes) == 0 {
		return append(out, e)
	}
	for _, c := range e.Causes {
		out = leaves(c, out)
	}
	return out
}

// rank orders problems by the position of their argument in the schema;
// unknown arguments come last.
func (s *argSchema) rank(path string) int {
	name, _, _ := strings.Cut(path, "/")
	if i := slices.IndexFunc(s.params, func(p param) bool { return p.name == name }); i >= 0 {
		return i
	}
	return len(s.params)
}

func (s *argSchema) names() string {
	names := make([]string, len(s.params))
	for i, p := range s.params {
		names[i] = p.name
	}
	return strings.Join(names, ", ")
}

func (s *argSchema) argErr(path, msg string, cause error) *ArgumentError {
	return &ArgumentError{Tool: s.tool, Path: path, Message: msg, Err: cause}
}

// explain turns one schema violation into the problems it reports.
func (s *argSchema) explain(leaf *jsonschema.ValidationError, args any) []*ArgumentError {
	switch k := leaf.ErrorKind.(type) {
	case *kind.Required:
		out := make([]*ArgumentError, len(k.Missing))
		for i, name := range k.Missing {
			out[i] = s.argErr(name, fmt.Sprintf("missing required argument %q", name), nil)
		}
		return out
	case *kind.AdditionalProperties:
		out := make([]*ArgumentError, len(k.Properties))
		for i, name := range k.Properties {
			out[i] = s.argErr(name, fmt.Sprintf("unknown argument %q (known: %s)", name, s.names()), nil)
		}
		return out
	}
	path := strings.Join(leaf.InstanceLocation, "/")
	if path == "" {
		return []*ArgumentError{s.argErr("", "the arguments "+s.rule(leaf.ErrorKind, "", args), nil)}
	}
	value := lookup(args, leaf.InstanceLocation)
	return []*ArgumentError{s.argErr(path, fmt.Sprintf("argument %q: %s", path, s.rule(leaf.ErrorKind, path, value)), nil)}
}

// rule says what the value at path must be and what it is.
func (s *argSchema) rule(k jsonschema.ErrorKind, path string, value any) string {
	switch k := k.(type) {
	case *kind.Type:
		return fmt.Sprintf("must be %s, got %s", typeNames(k.Want), show(value))
	case *kind.Enum:
		want := make([]string, len(k.Want))
		for i, w := range k.Want {
			want[i] = show(w)
		}
		return fmt.Sprintf("must be one of %s, got %s", strings.Join(want, ", "), show(value))
	case *kind.Pattern:
		hint := ""
		if i := s.rank(path); i < len(s.params) && s.params[i].hint != "" {
			hint = " (" + s.params[i].hint + ")"
		}
		return fmt.Sprintf("must match %s%s, got %s", k.Want, hint, show(value))
	case *kind.MinLength:
		if k.Want == 1 {
			return "must not be empty"
		}
		return fmt.Sprintf("must be at least %d characters long, got %d", k.Want, k.Got)
	case *kind.MaxLength:
		return fmt.Sprintf("must be at most %d characters long, got %d", k.Want, k.Got)
	case *kind.Minimum:
		return fmt.Sprintf("must be >= %s, got %s", rat(k.Want), rat(k.Got))
	case *kind.Maximum:
		return fmt.Sprintf("must be <= %s, got %s", rat(k.Want), rat(k.Got))
	}
	return k.LocalizedString(message.NewPrinter(language.English))
}

// lookup returns the value at loc inside v, or nil.
func lookup(v any, loc []string) any {
	for _, tok := range loc {
		obj, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = obj[tok]
	}
	return v
}

// typeNames renders JSON Schema type names with articles: "an integer or a string".
func typeNames(types []string) string {
	out := make([]string, len(types))
	for i, t := range types {
		switch t {
		case "integer", "object", "array":
			out[i] = "an " + t
		case "null":
			out[i] = "null"
		default:
			out[i] = "a " + t
		}
	}
	return strings.Join(out, " or ")
}

// maxShown bounds how much of a bad value an error quotes.
const maxShown = 60

// show renders a JSON value as JSON, cut to maxShown bytes.
func show(v any) string {
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

// rat renders a number exactly when it is an integer, else as a float.
func rat(r *big.Rat) string {
	if r == nil {
		return "?"
	}
	if r.IsInt() {
		return r.Num().String()
	}
	f, _ := r.Float64()
	return fmt.Sprint(f)
}
