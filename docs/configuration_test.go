// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package docs

import (
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/a2abus/a2abus/config"
	"github.com/a2abus/a2abus/internal/testenv"
)

// keyRow is a row of configuration.md's key table: | `key`, `key` | default | meaning |.
var keyRow = regexp.MustCompile("^\\| (`[a-z0-9_.]+`(?:(?:, | / )`[a-z0-9_.]+`)*) \\| ([^|]+) \\| (.+) \\|$")

// keyDefault is a key of configuration.md's table with the text of its
// default: its first `quoted` value, or "" for one documented as empty.
type keyDefault struct{ key, value string }

// firstValue is the first `quoted` value of a default's text.
var firstValue = regexp.MustCompile("`([^`]*)`")

// tableKeys reads configuration.md's key table. A cell may name several keys
// (`a.b`, `a.c` or `a.b` / `a.c`) and then gives their defaults in the same
// order, or one "empty" for all; a key starting with a dot continues the
// section of the key before it (`gateway.jwt.jwks_url`, `.audience`).
func tableKeys(t *testing.T) []keyDefault {
	t.Helper()
	doc, err := os.ReadFile("configuration.md")
	if err != nil {
		t.Fatal(err)
	}
	var keys []keyDefault
	for _, line := range strings.Split(string(doc), "\n") {
		m := keyRow.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		if strings.TrimSpace(m[2]) == "" || strings.TrimSpace(m[3]) == "" {
			t.Errorf("configuration.md: the row of %s has an empty default or meaning", m[1])
		}
		names := firstValue.FindAllStringSubmatch(m[1], -1)
		defaults := regexp.MustCompile(`, | / `).Split(strings.TrimSpace(m[2]), -1)
		if len(defaults) == 1 && len(names) > 1 && !strings.Contains(defaults[0], "`") {
			for len(defaults) < len(names) { // one "empty" for every key of the row
				defaults = append(defaults, defaults[0])
			}
		}
		if len(defaults) != len(names) {
			t.Errorf("configuration.md: the row of %s gives %d defaults for %d keys", m[1], len(defaults), len(names))
			continue
		}
		section := ""
		for i, k := range names {
			key := k[1]
			if strings.HasPrefix(key, ".") {
				if section == "" {
					t.Errorf("configuration.md: %s continues no key in %s", key, m[1])
					continue
				}
				key = section + key
			}
			section = key[:strings.LastIndex(key, ".")]
			var value string
			if v := firstValue.FindStringSubmatch(defaults[i]); v != nil {
				value = v[1]
			}
			keys = append(keys, keyDefault{key, value})
		}
	}
	return keys
}

// TestConfigurationTableIsEveryKey: configuration.md's key table documents
// every key the configuration knows (config.Keys), once, and no other.
func TestConfigurationTableIsEveryKey(t *testing.T) {
	known := config.Keys()
	seen := map[string]bool{}
	for _, row := range tableKeys(t) {
		k := row.key
		if seen[k] {
			t.Errorf("configuration.md documents %s twice", k)
		}
		seen[k] = true
		if !slices.Contains(known, k) {
			t.Errorf("configuration.md documents %s, which is not a configuration key (config.Keys)", k)
		}
	}
	for _, k := range known {
		if !seen[k] {
			t.Errorf("configuration key %s is not in configuration.md's key table: add a row | `%s` | default | meaning |", k, k)
		}
	}
}

// TestConfigurationTableDefaults: every default configuration.md gives a
// value for is the configuration's default: a file setting the key to it
// loads to config.Default(). (A default documented as empty is not checked.)
func TestConfigurationTableDefaults(t *testing.T) {
	testenv.IsolateConfig(t, "")
	want := config.Default()
	for _, row := range tableKeys(t) {
		if row.value == "" {
			continue
		}
		var value any = row.value
		var parsed any
		if yaml.Unmarshal([]byte(row.value), &parsed) == nil {
			if _, isMap := parsed.(map[string]any); !isMap { // "a2abus:" is a string here
				value = parsed
			}
		}
		doc := map[string]any{}
		node, parts := doc, strings.Split(row.key, ".")
		for _, p := range parts[:len(parts)-1] {
			next := map[string]any{}
			node[p] = next
			node = next
		}
		node[parts[len(parts)-1]] = value
		content, err := yaml.Marshal(doc)
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(t.TempDir(), "a2abus.yaml")
		if err := os.WriteFile(path, content, 0o600); err != nil {
			t.Fatal(err)
		}
		got, err := config.Load(config.LoadOptions{File: path})
		if err != nil {
			t.Errorf("configuration.md gives %s the default %q, which does not load: %v", row.key, row.value, err)
			continue
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("configuration.md gives %s the default %q, which is not its default (a2abus config check prints the defaults)", row.key, row.value)
		}
	}
}
