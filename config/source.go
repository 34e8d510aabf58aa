// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package config

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
