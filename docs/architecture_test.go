// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

// Package docs holds the project's documentation. Its test holds
// architecture.md to the code: the package table names every package, and
// no package imports one on its own floor or above.
package docs

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/a2abus/a2abus"

// tableRow is a row of architecture.md's package table: | `path` | floor | role |.
var tableRow = regexp.MustCompile("^\\| `([a-z0-9/_.-]+)` \\| ([0-9]+) \\| (.+) \\|$")

// floors reads the package table of architecture.md: path → floor.
func floors(t *testing.T) map[string]int {
	t.Helper()
	f, err := os.Open("architecture.md")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = f.Close() }()
	out := map[string]int{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		m := tableRow.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		n, _ := strconv.Atoi(m[2])
		if _, dup := out[m[1]]; dup {
			t.Errorf("architecture.md lists %s twice", m[1])
		}
		if strings.TrimSpace(m[3]) == "" {
			t.Errorf("architecture.md gives %s no role", m[1])
		}
		out[m[1]] = n
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// imports lists every package of the module with the module's packages it
// imports (production code only; tests may import what they need).
func imports(t *testing.T) map[string][]string {
	t.Helper()
	cmd := exec.Command("go", "list", "-f", "{{.ImportPath}} {{join .Imports \" \"}}", module+"/...")
	cmd.Dir = ".."
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.String())
	}
	graph := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		pkg := rel(fields[0])
		graph[pkg] = nil
		for _, imp := range fields[1:] {
			if imp == module || strings.HasPrefix(imp, module+"/") {
				graph[pkg] = append(graph[pkg], rel(imp))
			}
		}
	}
	return graph
}

func rel(importPath string) string {
	if importPath == module {
		return "."
	}
	return strings.TrimPrefix(importPath, module+"/")
}

// TestPackageTableIsTheCode: architecture.md's package table names every
// package of the module and no other, and every import goes down: a package
// imports only packages on a lower floor.
func TestPackageTableIsTheCode(t *testing.T) {
	table, graph := floors(t), imports(t)
	var pkgs []string
	for p := range graph {
		pkgs = append(pkgs, p)
	}
	sort.Strings(pkgs)
	for _, p := range pkgs {
		if p == "docs" {
			continue // this test's own package
		}
		fp, ok := table[p]
		if !ok {
			t.Errorf("package %s is not in architecture.md's package table: add a row | `%s` | floor | role |", p, p)
			continue
		}
		for _, q := range graph[p] {
			fq, ok := table[q]
			if ok && fq >= fp {
				t.Errorf("%s (floor %d) imports %s (floor %d): an import must go to a lower floor (move the code, or the package, and update architecture.md)", p, fp, q, fq)
			}
		}
	}
	for p := range table {
		if _, ok := graph[p]; !ok {
			t.Errorf("architecture.md lists %s, which is not a package of the module", p)
		}
	}
}
