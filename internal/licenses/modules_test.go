// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package licenses

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestRead(t *testing.T) {
	dir := t.TempDir()
	for name, text := range map[string]string{
		"LICENSE.md":    mitText,
		"COPYING":       bsd2Text + bsd3Clause,
		"NOTICE":        "Copyright Someone",
		"license.go":    "package x // " + gplText, // source, not a license file
		"LICENSE-x.pem": gplText,                   // not a license file either
		"README.md":     gplText,
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(dir, "LICENSES"), 0o755); err != nil {
		t.Fatal(err)
	}
	files, notices, ids, err := Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"COPYING", "LICENSE.md"}; !slices.Equal(files, want) {
		t.Errorf("files = %v, want %v", files, want)
	}
	if want := []string{"NOTICE"}; !slices.Equal(notices, want) {
		t.Errorf("notices = %v, want %v", notices, want)
	}
	if want := []string{"BSD-3-Clause", "MIT"}; !slices.Equal(ids, want) {
		t.Errorf("licenses = %v, want %v", ids, want)
	}
	if _, _, _, err := Read(filepath.Join(dir, "missing")); err == nil {
		t.Error("Read of a missing directory: no error")
	}
}

// TestCheck: Check refuses, naming each, a module without a license file,
// one whose license it cannot read, and one with a license not allowed
// (also beside an allowed one); it passes the allowed licenses, MPL-2.0
// with its note.
func TestCheck(t *testing.T) {
	ok := []Module{
		{Path: "example.com/apache", Files: []string{"LICENSE"}, Licenses: []string{"Apache-2.0"}},
		{Path: "example.com/dual", Files: []string{"LICENSE"}, Licenses: []string{"Apache-2.0", "MIT"}},
		{Path: "example.com/mpl", Files: []string{"LICENSE"}, Licenses: []string{"MPL-2.0"}},
	}
	if err := Check(ok); err != nil {
		t.Fatalf("Check(allowed) = %v", err)
	}
	if notes := Notes(ok[2]); len(notes) != 1 || !strings.HasPrefix(notes[0], "MPL-2.0: weak copyleft") {
		t.Errorf("Notes(MPL-2.0) = %v", notes)
	}
	bad := []Module{
		{Path: "example.com/none", Dir: "/cache/none"},
		{Path: "example.com/unread", Files: []string{"LICENSE"}},
		{Path: "example.com/gpl", Files: []string{"COPYING"}, Licenses: []string{"GPL"}},
		{Path: "example.com/mit-commons", Files: []string{"LICENSE"}, Licenses: []string{"Commons-Clause", "MIT"}},
	}
	err := Check(append(ok, bad...))
	if !errors.Is(err, ErrNotAllowed) {
		t.Fatalf("Check = %v, want ErrNotAllowed", err)
	}
	for _, want := range []string{
		"example.com/none: no license file",
		"example.com/unread: license not recognized in LICENSE",
		"example.com/gpl: license GPL is not allowed",
		"example.com/mit-commons: license Commons-Clause is not allowed",
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("Check's error lacks %q:\n%v", want, err)
		}
	}
	for _, m := range ok {
		if strings.Contains(err.Error(), m.Path) {
			t.Errorf("Check's error names %s, which is allowed:\n%v", m.Path, err)
		}
	}
}

// TestLinkedModulesHaveAllowedLicenses: every module the binaries link, on
// every platform they are built for, has a license file with an allowed
// license. It reads the module cache only (GOPROXY=off): the build fills it.
func TestLinkedModulesHaveAllowedLicenses(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	offline := []string{"GOPROXY=off", "GOFLAGS=-mod=readonly"}
	mods, err := Linked(ctx, "../..", offline, Platforms, "./cmd/...")
	if err != nil {
		t.Fatalf("%v\n(the module cache is filled by go build ./... or go mod download)", err)
	}
	found := map[string]Module{}
	for _, m := range mods {
		found[m.Path] = m
		t.Logf("%s %s %v", m.Path, m.Version, m.Licenses)
	}
	// The listing is real: the standard library, this module and the
	// transports' clients are in it, each with its license read.
	for path, want := range map[string]string{
		Std:                              "BSD-3-Clause",
		"github.com/a2abus/a2abus":       "Apache-2.0",
		"github.com/rabbitmq/amqp091-go": "BSD-2-Clause",
		"github.com/redis/go-redis/v9":   "BSD-2-Clause",
	} {
		if m, ok := found[path]; !ok || !slices.Contains(m.Licenses, want) {
			t.Errorf("%s: listed %v with licenses %v, want %s", path, ok, m.Licenses, want)
		}
	}
	if !found["github.com/a2abus/a2abus"].Main {
		t.Error("this module is not marked Main")
	}
	if err := Check(mods); err != nil {
		t.Error(err)
	}
}
