// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package workflow

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/a2abus/a2abus/internal/fileread"
)

// MaxFileBytes bounds a workflow file; a longer one, or a path that is not a
// regular file (a FIFO, a device), is refused unread.
const MaxFileBytes = 1 << 20

// DefaultMaxSteps is the default bound on a workflow's steps, group members
// included (Loader.MaxSteps, Options.MaxSteps; configuration workflow.max_steps).
const DefaultMaxSteps = 200

// Loader loads workflow files, refusing one with more than MaxSteps steps.
// Load, Parse and LoadDir are those of the zero Loader.
type Loader struct {
	// MaxSteps bounds a workflow's steps, group members included; 0 means DefaultMaxSteps.
	MaxSteps int
}

// checkSteps refuses a workflow (of file) with more than limit steps.
func checkSteps(file string, n, limit int) error {
	if limit <= 0 {
		limit = DefaultMaxSteps
	}
	if n > limit {
		return &SpecError{File: file, Field: "steps", Rule: fmt.Sprintf("%d steps, more than the %d a workflow may have (workflow.max_steps)", n, limit)}
	}
	return nil
}

// ErrNoWorkflows: LoadDir found no .yaml or .yml file.
var ErrNoWorkflows = errors.New("workflow: no workflow files")

// rawStep is a step as written in YAML (a group has parallel: set).
type rawStep struct {
	ID        string     `yaml:"id"`
	Title     string     `yaml:"title"`
	Agent     string     `yaml:"agent"`
	Skill     string     `yaml:"skill"`
	Text      string     `yaml:"text"`
	Input     any        `yaml:"input"`
	Timeout   string     `yaml:"timeout"`
	Retries   int        `yaml:"retries"`
	Optional  bool       `yaml:"optional"`
	NoCompare bool       `yaml:"no_compare"`
	Parallel  []*rawStep `yaml:"parallel"`
	Quorum    int        `yaml:"quorum"`
}

type rawWorkflow struct {
	Name        string         `yaml:"name"`
	Description string         `yaml:"description"`
	Defaults    map[string]any `yaml:"defaults"`
	Constraints map[string]any `yaml:"constraints"`
	Steps       []*rawStep     `yaml:"steps"`
}

// Load reads and validates the workflow file at path (Loader.Load).
func Load(path string) (*Workflow, error) { return Loader{}.Load(path) }

// Parse decodes and validates the workflow in data (Loader.Parse).
func Parse(file string, data []byte) (*Workflow, error) { return Loader{}.Parse(file, data) }

// LoadDir loads every workflow file of dir (Loader.LoadDir).
func LoadDir(dir string) ([]*Workflow, error) { return Loader{}.LoadDir(dir) }

// Load reads and validates the workflow file at path.
func (l Loader) Load(path string) (*Workflow, error) {
	data, err := fileread.Read(path, MaxFileBytes)
	if err != nil {
		return nil, fmt.Errorf("workflow: read workflow file: %w", err)
	}
	return l.Parse(path, data)
}

// Parse decodes and validates the workflow in data, the content of the
// file named file. Unknown fields are refused, and a workflow of more than
// MaxSteps steps; errors are *SpecError.
func (l Loader) Parse(file string, data []byte) (*Workflow, error) {
	var raw rawWorkflow
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&raw); err != nil {
		return nil, &SpecError{File: file, Rule: "not a valid workflow: " + yamlRule(err), Err: err}
	}
	var extra any
	if err := dec.Decode(&extra); err == nil {
		return nil, &SpecError{File: file, Rule: "a second YAML document: one workflow per file"}
	}
	n := 0
	for _, r := range raw.Steps {
		if n++; r != nil && r.Parallel != nil {
			n += len(r.Parallel) - 1
		}
	}
	if err := checkSteps(file, n, l.MaxSteps); err != nil {
		return nil, err // before anything is built for them
	}
	w := &Workflow{Name: raw.Name, Description: raw.Description, File: file}
	var err error
	if w.Defaults, err = jsonMap(raw.Defaults); err != nil {
		return nil, &SpecError{File: file, Field: "defaults", Rule: err.Error()}
	}
	if w.Constraints, err = jsonMap(raw.Constraints); err != nil {
		return nil, &SpecError{File: file, Field: "constraints", Rule: err.Error()}
	}
	for i, r := range raw.Steps {
		field := fmt.Sprintf("steps[%d]", i)
		if r == nil {
			return nil, &SpecError{File: file, Field: field, Rule: "empty step"}
		}
		if r.Parallel == nil {
			s, err := r.step(file, field)
			if err != nil {
				return nil, err
			}
			w.Steps = append(w.Steps, &Node{Step: s})
			continue
		}
		if r.Agent != "" || r.Skill != "" || r.Text != "" || r.Input != nil || r.Timeout != "" || r.Retries != 0 || r.Optional || r.Title != "" {
			return nil, &SpecError{File: file, Field: field, Rule: "a parallel group takes only id, quorum and parallel; put agent, skill… on its steps"}
		}
		g := &Group{ID: r.ID, Quorum: r.Quorum}
		for j, rs := range r.Parallel {
			sub := fmt.Sprintf("%s.parallel[%d]", field, j)
			if rs == nil {
				return nil, &SpecError{File: file, Field: sub, Rule: "empty step"}
			}
			if rs.Parallel != nil {
				return nil, &SpecError{File: file, Field: sub, Rule: "parallel groups do not nest"}
			}
			s, err := rs.step(file, sub)
			if err != nil {
				return nil, err
			}
			g.Steps = append(g.Steps, s)
		}
		w.Steps = append(w.Steps, &Node{Group: g})
	}
	if err := w.Validate(); err != nil {
		return nil, err
	}
	return w, nil
}

// unknownField matches yaml's message for a field a type lacks.
var unknownField = regexp.MustCompile(`field (\S+) not found in type workflow\.raw(Workflow|Step)`)

// yamlRule is err as the rule of a SpecError, on one line: yaml's type
// errors joined by "; ", an unknown field named with the fields allowed.
func yamlRule(err error) string {
	var te *yaml.TypeError
	if !errors.As(err, &te) {
		return err.Error()
	}
	msgs := make([]string, len(te.Errors))
	for i, m := range te.Errors {
		msgs[i] = unknownField.ReplaceAllStringFunc(m, func(s string) string {
			sub := unknownField.FindStringSubmatch(s)
			fields := "name, description, defaults, constraints, steps"
			if sub[2] == "Step" {
				fields = "id, title, agent, skill, text, input, timeout, retries, optional, no_compare (a step); id, quorum, parallel (a group)"
			}
			return fmt.Sprintf("unknown field %s; the fields here are %s", sub[1], fields)
		})
	}
	return strings.Join(msgs, "; ")
}

func (r *rawStep) step(file, field string) (*Step, error) {
	if r.Quorum != 0 {
		return nil, &SpecError{File: file, Field: field + ".quorum", Rule: "quorum belongs to a parallel group"}
	}
	s := &Step{ID: r.ID, Title: r.Title, Agent: r.Agent, Skill: r.Skill, Text: r.Text, Retries: r.Retries, Optional: r.Optional, NoCompare: r.NoCompare}
	if r.Timeout != "" {
		d, err := time.ParseDuration(r.Timeout)
		if err != nil || d <= 0 {
			return nil, &SpecError{File: file, Field: field + ".timeout", Rule: fmt.Sprintf("must be a positive duration such as \"30s\", got %q", r.Timeout)}
		}
		s.Timeout = d
	}
	if r.Input != nil {
		v, err := jsonValue(r.Input)
		if err != nil {
			return nil, &SpecError{File: file, Field: field + ".input", Rule: err.Error()}
		}
		s.Input = v
	}
	return s, nil
}

// jsonMap converts a decoded YAML mapping into JSON-compatible values.
func jsonMap(m map[string]any) (map[string]any, error) {
	if m == nil {
		return nil, nil
	}
	v, err := jsonValue(m)
	if err != nil {
		return nil, err
	}
	return v.(map[string]any), nil
}

// jsonValue converts a decoded YAML value into one encoding/json can
// encode: mappings must have string keys.
func jsonValue(v any) (any, error) {
	switch t := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, e := range t {
			c, err := jsonValue(e)
			if err != nil {
				return nil, err
			}
			out[k] = c
		}
		return out, nil
	case map[any]any:
		out := make(map[string]any, len(t))
		for k, e := range t {
			ks, ok := k.(string)
			if !ok {
				return nil, fmt.Errorf("mapping key %v is not a string", k)
			}
			c, err := jsonValue(e)
			if err != nil {
				return nil, err
			}
			out[ks] = c
		}
		return out, nil
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			c, err := jsonValue(e)
			if err != nil {
				return nil, err
			}
			out[i] = c
		}
		return out, nil
	case time.Time:
		return t.Format(time.RFC3339Nano), nil
	default:
		return v, nil
	}
}

// LoadDir loads every .yaml and .yml file of dir (not its sub-folders), in
// name order. Two files declaring one workflow name are refused; a folder
// with none is an error wrapping ErrNoWorkflows.
func (l Loader) LoadDir(dir string) ([]*Workflow, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("workflow: read workflow folder: %w", err)
	}
	var names []string
	for _, e := range entries {
		ext := strings.ToLower(filepath.Ext(e.Name()))
		if !e.IsDir() && (ext == ".yaml" || ext == ".yml") && !strings.HasPrefix(e.Name(), ".") {
			names = append(names, e.Name())
		}
	}
	sort.Strings(names)
	var out []*Workflow
	byName := map[string]string{}
	for _, n := range names {
		path := filepath.Join(dir, n)
		w, err := l.Load(path)
		if err != nil {
			return nil, err
		}
		if prev, ok := byName[strings.ToLower(w.Name)]; ok {
			return nil, &SpecError{File: path, Field: "name", Rule: fmt.Sprintf("workflow %q is already declared by %s", w.Name, prev)}
		}
		byName[strings.ToLower(w.Name)] = path
		out = append(out, w)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%w in %s", ErrNoWorkflows, dir)
	}
	return out, nil
}
