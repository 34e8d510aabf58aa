// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package memory_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// keyRoots start every working-memory key, once id and derived session id
// of the schema (memory/keys.go); keySegments are segments inside them.
var (
	keyRoots    = []string{"session/", "a2a/", "a2a-notify/", "workflow/", "converse/", "chat/", "primary/", "calls/"}
	keySegments = []string{"/a2a-owner", "/a2a-grants/", "/calls/", "/steps/", "/sent/", "/a2a/", "/lease", "/result"}
	// sessionPrefixes are the literals that start a derived session id.
	sessionPrefixes = []string{"wf-", "converse-"}
)

// schemaExempt are the non-test files allowed to spell keys: the schema
// itself, and the stores' conformance suite, which tests a store with keys
// of its own.
func schemaExempt(rel string) bool {
	return rel == "memory/keys.go" || strings.HasPrefix(rel, "memory/memorytest/")
}

// formatsKey reports whether the string literal s looks like a piece of a
// working-memory key.
func formatsKey(s string) bool {
	for _, r := range keyRoots {
		if strings.HasPrefix(s, r) {
			return true
		}
	}
	for _, seg := range keySegments {
		if strings.HasPrefix(s, seg) || (strings.Contains(s, seg) && !strings.ContainsAny(s, " \n\t")) {
			return true
		}
	}
	for _, p := range sessionPrefixes {
		if s == p {
			return true
		}
	}
	return false
}

// keyLiterals returns "file:line: literal" for every string literal of the
// non-test Go files under root that formatsKey flags.
func keyLiterals(t *testing.T, root string) []string {
	t.Helper()
	var found []string
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != root && (strings.HasPrefix(name, ".") || name == "testdata" || name == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		if schemaExempt(rel) {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			lit, ok := n.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return true
			}
			s, err := strconv.Unquote(lit.Value)
			if err == nil && formatsKey(s) {
				found = append(found, fset.Position(lit.Pos()).String()+": "+lit.Value)
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatalf("scan %s: %v", root, err)
	}
	return found
}

// TestKeysBuiltOnlyInKeysGo fails when a package other than memory formats a
// working-memory key: every key, once id and derived session id is built by
// memory/keys.go, so the schema (docs/memory.md) has one place.
func TestKeysBuiltOnlyInKeysGo(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	if found := keyLiterals(t, root); len(found) > 0 {
		t.Fatalf("working-memory keys formatted outside memory/keys.go (use its builders):\n%s", strings.Join(found, "\n"))
	}
}

// TestFormatsKey checks the scanner's rule on the pieces the old key
// builders were made of, and on literals that are not keys.
func TestFormatsKey(t *testing.T) {
	for _, s := range []string{"session/", "a2a/tasks/", "a2a-notify/", "workflow/", "converse/", "chat/", "primary/", "calls/",
		"/a2a-owner", "/a2a-grants/", "/calls/", "/steps/", "/sent/", "/lease", "/result", "wf-", "converse-", "%s/steps/%s"} {
		if !formatsKey(s) {
			t.Errorf("formatsKey(%q) = false", s)
		}
	}
	for _, s := range []string{"", "session", "a2a", "converse-probe", "wf", "see docs/memory.md for the key session/<id>/calls/", "a2a.dlx", "agent.task."} {
		if formatsKey(s) {
			t.Errorf("formatsKey(%q) = true", s)
		}
	}
}
