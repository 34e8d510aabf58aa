// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package testenv

import (
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// builds holds the binaries compiled by Build in this test process.
var builds struct {
	mu   sync.Mutex
	dir  string            // created on first use; RemoveBuilds deletes it
	bins map[string]string // package path → binary
	errs map[string]error
}

// BinDirEnv names a directory of binaries built once for a whole test run
// (make unit builds the mains there before go test): Build uses the one
// named after pkg's last element when it is there, rather than linking
// its own copy in every test process that needs it.
const BinDirEnv = "A2ABUS_TEST_BINDIR"

// Build compiles the main package pkg of this module (a module-relative path
// such as "./cmd/a2abus"), once per test process, and returns the binary's
// path (named after the package's last element); a binary of that name in
// $A2ABUS_TEST_BINDIR is used as it is. A failed build fails tb.
// Call RemoveBuilds from TestMain to delete the binaries.
func Build(tb testing.TB, pkg string) string {
	tb.Helper()
	builds.mu.Lock()
	defer builds.mu.Unlock()
	if bin, ok := builds.bins[pkg]; ok {
		return bin
	}
	if dir := os.Getenv(BinDirEnv); dir != "" {
		if bin := filepath.Join(dir, path.Base(pkg)); isExecutable(bin) {
			if builds.bins == nil {
				builds.bins = map[string]string{}
			}
			builds.bins[pkg] = bin
			return bin
		}
	}
	if err, ok := builds.errs[pkg]; ok {
		tb.Fatal(err)
	}
	bin, err := build(pkg)
	if err != nil {
		if builds.errs == nil {
			builds.errs = map[string]error{}
		}
		builds.errs[pkg] = err
		tb.Fatal(err)
	}
	if builds.bins == nil {
		builds.bins = map[string]string{}
	}
	builds.bins[pkg] = bin
	return bin
}

// build compiles pkg into builds.dir, from the module's root.
func build(pkg string) (string, error) {
	if builds.dir == "" {
		dir, err := os.MkdirTemp("", "a2abus-testbin-")
		if err != nil {
			return "", fmt.Errorf("testenv: build %s: %w", pkg, err)
		}
		builds.dir = dir
	}
	gomod, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil || strings.TrimSpace(string(gomod)) == "" {
		return "", fmt.Errorf("testenv: build %s: find the module root (go env GOMOD): %v", pkg, err)
	}
	bin := filepath.Join(builds.dir, path.Base(pkg))
	c := exec.Command("go", "build", "-o", bin, pkg)
	c.Dir = filepath.Dir(strings.TrimSpace(string(gomod)))
	if out, err := c.CombinedOutput(); err != nil {
		return "", fmt.Errorf("testenv: build %s: %w\n%s", pkg, err, out)
	}
	return bin, nil
}

// isExecutable reports whether name is a regular file someone may execute.
func isExecutable(name string) bool {
	fi, err := os.Stat(name)
	return err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0
}

// RemoveBuilds deletes what Build compiled; TestMain calls it after m.Run.
func RemoveBuilds() {
	builds.mu.Lock()
	defer builds.mu.Unlock()
	if builds.dir != "" {
		_ = os.RemoveAll(builds.dir)
	}
	builds.dir, builds.bins, builds.errs = "", nil, nil
}
