// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package licenses

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// Allowed are the licenses a module linked into the Apache-2.0 binaries may
// have, each with a note for the ones that ask more than attribution.
var Allowed = map[string]string{
	"Apache-2.0":   "",
	"MIT":          "",
	"BSD-2-Clause": "",
	"BSD-3-Clause": "",
	"ISC":          "",
	"MPL-2.0":      "weak copyleft: the module's own files, if changed, are shared under the MPL-2.0",
}

// ErrNotAllowed is wrapped by Check's error.
var ErrNotAllowed = errors.New("licenses: module without an allowed license")

// Check returns an error naming every module whose license files hold no
// license Classify knows, or one that is not Allowed; nil when all pass.
func Check(mods []Module) error {
	var bad []string
	for _, m := range mods {
		if why := refusal(m); why != "" {
			bad = append(bad, strings.TrimSpace(m.Path+" "+m.Version)+": "+why)
		}
	}
	if len(bad) == 0 {
		return nil
	}
	allowed := slices.Sorted(maps.Keys(Allowed))
	return fmt.Errorf("%w (allowed: %s):\n  %s", ErrNotAllowed, strings.Join(allowed, ", "), strings.Join(bad, "\n  "))
}

// refusal says why m's licenses are not acceptable; "" when they are.
func refusal(m Module) string {
	switch {
	case len(m.Files) == 0:
		return "no license file (LICENSE, COPYING, …) at the root of " + m.Dir
	case len(m.Licenses) == 0:
		return "license not recognized in " + strings.Join(m.Files, ", ") + " (read it, then teach Classify its text or drop the module)"
	}
	var refused []string
	for _, id := range m.Licenses {
		if _, ok := Allowed[id]; !ok {
			refused = append(refused, id)
		}
	}
	if len(refused) > 0 {
		return "license " + strings.Join(refused, ", ") + " is not allowed"
	}
	return ""
}

// Notes returns the notes of m's Allowed licenses that have one ("MPL-2.0:
// weak copyleft …").
func Notes(m Module) []string {
	var notes []string
	for _, id := range m.Licenses {
		if note := Allowed[id]; note != "" {
			notes = append(notes, id+": "+note)
		}
	}
	return notes
}
