// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package config

import (
	"fmt"

	"go.yaml.in/yaml/v3"
)

// Source says where a key's value came from.
type Source string

// The sources of a value, each overriding the one before.
const (
	// SourceDefault: the key was not set; Default's value applies.
	SourceDefault Source = "default"
	// SourceFile: the configuration file set it.
	SourceFile Source = "file"
	// SourceEnv: its A2ABUS_* variable set it (EnvName).
	SourceEnv Source = "env"
	// SourceFlag: a command-line flag set it (AddFlags).
	SourceFlag Source = "flag"
)

// Sources maps every configuration key to the source of its value.
type Sources map[string]Source

// IsSet reports whether key's value came from the file, the environment or
// a flag rather than the defaults.
func (s Sources) IsSet(key string) bool { return s[key] != "" && s[key] != SourceDefault }

// Given is the set of keys whose value did not come from the defaults.
func (s Sources) Given() Given {
	g := Given{}
	for k, src := range s {
		if src != SourceDefault {
			g[k] = true
		}
	}
	return g
}

// FlagName is the flag AddFlags defines for key ("amqp-url" for bus.url),
// "" when it defines none.
func FlagName(key string) string {
	for name, k := range flagKeys {
		if k == key {
			return name
		}
	}
	return ""
}

// Setting is one key of a configuration, its value and where it came from.
type Setting struct {
	// Key is the dotted key, e.g. bus.url.
	Key string `json:"key"`
	// Value is the value as a configuration file spells it (durations as
	// "30s", lists and rules as JSON arrays and objects).
	Value any `json:"value"`
	// Source is where the value came from.
	Source Source `json:"source"`
}

// Settings lists every key of c, in the order of Keys, with its value and
// its source in src (SourceDefault for a key src lacks). Print it from
// c.Redacted() to keep secrets out.
func (c *Config) Settings(src Sources) ([]Setting, error) {
	leaves := fields(c)
	out := make([]Setting, 0, len(leaves))
	for _, f := range leaves {
		// Through YAML, so that every value is spelt as in a file.
		b, err := yaml.Marshal(f.val.Interface())
		if err != nil {
			return nil, fmt.Errorf("config: print %s: %w", f.key, err)
		}
		var v any
		if err := yaml.Unmarshal(b, &v); err != nil {
			return nil, fmt.Errorf("config: print %s: %w", f.key, err)
		}
		s := src[f.key]
		if s == "" {
			s = SourceDefault
		}
		out = append(out, Setting{Key: f.key, Value: v, Source: s})
	}
	return out, nil
}
