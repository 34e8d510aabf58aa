// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package docs

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/a2abus/a2abus/config"
)

// keyRow is a row of configuration.md's key table: | `key`, `key` | default | meaning |.
var keyRow = regexp.MustCompile("^\\| (`[a-z0-9_.]+`(?:(?:, | / )`[a-z0-9_.]+`)*) \\| ([^|]+) \\| (.+) \\|$")

// tableKeys reads configuration.md's key table. A cell may name several keys
// (`a.b`, `a.c` or `a.b` / `a.c`); a key starting with a dot continues the
// section of the key before it (`gateway.jwt.jwks_url`, `.audience`).
func tableKeys(t *testing.T) []string {
	t.Helper()
	doc, err := os.ReadFile("configuration.md")
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, line := range strings.Split(string(doc), "\n") {
		m := keyRow.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		if strings.TrimSpace(m[2]) == "" || strings.TrimSpace(m[3]) == "" {
			t.Errorf("configuration.md: the row of %s has an empty default or meaning", m[1])
		}
		section := ""
		for _, k := range regexp.MustCompile("`([a-z0-9_.]+)`").FindAllStringSubmatch(m[1], -1) {
			key := k[1]
			if strings.HasPrefix(key, ".") {
				if section == "" {
					t.Errorf("configuration.md: %s continues no key in %s", key, m[1])
					continue
				}
				key = section + key
			}
			section = key[:strings.LastIndex(key, ".")]
			keys = append(keys, key)
		}
	}
	return keys
}

// TestConfigurationTableIsEveryKey: configuration.md's key table documents
// every key the configuration knows (config.Keys), once, and no other.
func TestConfigurationTableIsEveryKey(t *testing.T) {
	documented := tableKeys(t)
	known := config.Keys()
	seen := map[string]bool{}
	for _, k := range documented {
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
