// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package llmagent

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/a2abus/a2abus/internal/fileread"
	"github.com/a2abus/a2abus/pkg/a2a"
)

// MaxFileBytes bounds an agent file; a longer one, or a path that is not a
// regular file (a FIFO, a device), is refused unread.
const MaxFileBytes = 1 << 20

// ErrNoAgentFiles: LoadDir found no .yaml or .yml file.
var ErrNoAgentFiles = errors.New("llmagent: no agent files")

// Load reads the agent file at path, applies the defaults and checks every
// rule. Unknown fields are refused; an error is a *SpecError naming the
// file, the field path and the rule (or an error wrapping fs.ErrNotExist).
func Load(path string) (*Spec, error) {
	data, err := readFile(path)
	if err != nil {
		return nil, err
	}
	return Parse(path, data)
}

// Parse is Load of data, the content of the file named file.
func Parse(file string, data []byte) (*Spec, error) {
	var doc yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&doc); err != nil {
		return nil, &SpecError{File: file, Rule: fmt.Sprintf("not valid YAML: %v", err), Err: err}
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); err == nil {
		return nil, &SpecError{File: file, Rule: fmt.Sprintf("line %d: a second YAML document: one agent per file", extra.Line)}
	}
	s := &Spec{File: file}
	root := &doc
	if root.Kind == yaml.DocumentNode && len(root.Content) == 1 {
		root = root.Content[0]
	}
	if err := decodeNode(root, reflect.ValueOf(s).Elem(), ""); err != nil {
		err.File = file
		return nil, err
	}
	if err := s.Normalize(); err != nil {
		return nil, err
	}
	return s, nil
}

// LoadDir loads every .yaml and .yml file of dir (not its sub-folders), in
// name order. Two files declaring one agent name are refused; a folder with
// no agent file is an error wrapping ErrNoAgentFiles.
func LoadDir(dir string) ([]*Spec, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("llmagent: read agent folder: %w", err)
	}
	var specs []*Spec
	for _, e := range entries {
		ext := strings.ToLower(filepath.Ext(e.Name()))
		if e.IsDir() || (ext != ".yaml" && ext != ".yml") || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		s, err := Load(filepath.Join(dir, e.Name()))
		if err != nil {
			return nil, err
		}
		if i := slices.IndexFunc(specs, func(o *Spec) bool { return a2a.SameAgent(o.Name, s.Name) }); i >= 0 {
			return nil, &SpecError{File: s.File, Path: "name", Rule: fmt.Sprintf("agent %q is already declared in %s", s.Name, specs[i].File)}
		}
		specs = append(specs, s)
	}
	if len(specs) == 0 {
		return nil, fmt.Errorf("%w: %s has no .yaml or .yml file", ErrNoAgentFiles, dir)
	}
	return specs, nil
}

// readFile reads path: a regular file of at most MaxFileBytes.
func readFile(path string) ([]byte, error) {
	data, err := fileread.Read(path, MaxFileBytes)
	if err != nil {
		return nil, fmt.Errorf("llmagent: read agent file: %w", err)
	}
	return data, nil
}

var (
	rawMessageType = reflect.TypeFor[json.RawMessage]()
	durationType   = reflect.TypeFor[time.Duration]()
)

// decodeNode decodes n into v (a struct, slice, json.RawMessage or scalar),
// refusing unknown fields; an error names the field path.
func decodeNode(n *yaml.Node, v reflect.Value, path string) *SpecError {
	fail := func(format string, args ...any) *SpecError {
		return &SpecError{Path: path, Rule: fmt.Sprintf("line %d: ", n.Line) + fmt.Sprintf(format, args...)}
	}
	if n.Kind == yaml.AliasNode {
		return fail("YAML aliases are not accepted in agent files")
	}
	if n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
		return nil // an empty value keeps the default
	}
	switch {
	case v.Type() == rawMessageType:
		return decodeRaw(n, v, fail)
	case v.Kind() == reflect.Struct && v.Type() != durationType:
		if n.Kind != yaml.MappingNode {
			return fail("want a mapping of fields, got %s", kindName(n))
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			key, val := n.Content[i], n.Content[i+1]
			f, ok := fieldByTag(v, key.Value)
			sub := joinPath(path, key.Value)
			if !ok {
				return &SpecError{Path: sub, Rule: fmt.Sprintf("line %d: unknown field; the fields here are %s", key.Line, strings.Join(tags(v.Type()), ", "))}
			}
			if err := decodeNode(val, f, sub); err != nil {
				return err
			}
		}
		return nil
	case v.Kind() == reflect.Slice:
		if n.Kind != yaml.SequenceNode {
			return fail("want a list, got %s", kindName(n))
		}
		out := reflect.MakeSlice(v.Type(), len(n.Content), len(n.Content))
		for i, item := range n.Content {
			if err := decodeNode(item, out.Index(i), fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
		v.Set(out)
		return nil
	}
	if n.Kind != yaml.ScalarNode {
		return fail("want a single value, got %s", kindName(n))
	}
	if err := n.Decode(v.Addr().Interface()); err != nil {
		if v.Type() == durationType {
			return fail("want a duration such as 600s or 10m, got %q", n.Value)
		}
		return fail("want %s, got %q", scalarName(v.Type()), n.Value)
	}
	return nil
}

// decodeRaw stores a JSON Schema written as a YAML mapping or as a JSON string.
func decodeRaw(n *yaml.Node, v reflect.Value, fail func(string, ...any) *SpecError) *SpecError {
	var raw []byte
	if n.Kind == yaml.ScalarNode && n.Tag == "!!str" {
		raw = []byte(n.Value)
		if !json.Valid(raw) {
			return fail("a JSON Schema given as a string must be valid JSON")
		}
	} else {
		var val any
		if err := n.Decode(&val); err != nil {
			return fail("%v", err)
		}
		b, err := json.Marshal(val)
		if err != nil {
			return fail("cannot be expressed as JSON: %v", err)
		}
		raw = b
	}
	v.Set(reflect.ValueOf(json.RawMessage(raw)))
	return nil
}

// fieldByTag returns the field of struct v whose yaml tag is name.
func fieldByTag(v reflect.Value, name string) (reflect.Value, bool) {
	t := v.Type()
	for i := range t.NumField() {
		if tag, _, _ := strings.Cut(t.Field(i).Tag.Get("yaml"), ","); tag == name && tag != "-" {
			return v.Field(i), true
		}
	}
	return reflect.Value{}, false
}

// tags lists the yaml field names of struct type t.
func tags(t reflect.Type) []string {
	var out []string
	for i := range t.NumField() {
		if tag, _, _ := strings.Cut(t.Field(i).Tag.Get("yaml"), ","); tag != "" && tag != "-" {
			out = append(out, tag)
		}
	}
	return out
}

func joinPath(path, field string) string {
	if path == "" {
		return field
	}
	return path + "." + field
}

func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		return fmt.Sprintf("%q", n.Value)
	}
	return "something else"
}

func scalarName(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Int, reflect.Int64:
		return "a whole number"
	case reflect.Bool:
		return "true or false"
	case reflect.String:
		return "a string"
	}
	return t.String()
}
