// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package testenv

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Command returns the path of the program name (node, npm, python3 …):
// the test skips without it locally and fails under CI=true, where every
// machine has it.
func Command(t testing.TB, name string) string {
	t.Helper()
	path, err := exec.LookPath(name)
	if err != nil {
		if InCI() {
			t.Fatalf("%s is required under CI=true: %v", name, err)
		}
		t.Skipf("%s not found (%v): this test needs it", name, err)
	}
	return path
}

// NPMPackage installs the npm package pkg at version (and what it
// depends on) into the user's cache, once per version, and returns the
// folder whose node_modules holds it: tests of clients and servers from
// other ecosystems use it, and nothing is committed. A second test, or a
// second process, finds it installed; concurrent installs each install
// into a folder of their own and the first rename wins.
func NPMPackage(t testing.TB, pkg, version string) string {
	t.Helper()
	npm := Command(t, "npm")
	cache, err := os.UserCacheDir()
	if err != nil {
		t.Fatalf("no cache directory for npm %s: %v", pkg, err)
	}
	dir := filepath.Join(cache, "a2abus", "npm", strings.NewReplacer("@", "", "/", "-").Replace(pkg), version)
	installed := func() bool {
		_, err := os.Stat(filepath.Join(dir, "node_modules", filepath.FromSlash(pkg), "package.json"))
		return err == nil
	}
	if installed() {
		return dir
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		t.Fatal(err)
	}
	tmp, err := os.MkdirTemp(filepath.Dir(dir), "install-")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = os.RemoveAll(tmp) }()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, npm, "install", "--prefix", tmp, "--no-audit", "--no-fund", "--loglevel=error", pkg+"@"+version)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("npm install %s@%s: %v\n%s", pkg, version, err, out)
	}
	if err := os.Rename(tmp, dir); err != nil && !installed() {
		t.Fatalf("install npm %s@%s into %s: %v", pkg, version, dir, err)
	}
	return dir
}
