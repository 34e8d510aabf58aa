// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package licenses

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// Platforms are the GOOS/GOARCH pairs the binaries are built for; Linked
// lists the modules linked on any of them.
var Platforms = []string{"linux/amd64", "linux/arm64", "darwin/amd64", "darwin/arm64"}

// Std is the module path Linked gives the Go standard library, which every
// program links.
const Std = "std"

// Module is one module a program links and the licenses read from its
// files.
type Module struct {
	Path    string
	Version string // empty for the main module
	Main    bool   // the module being built
	Dir     string // where its files are (the module cache, or the main module's root)
	// Files are the license files found at Dir's root (LICENSE, COPYING, …),
	// Notices its NOTICE files, which Apache-2.0 asks a redistribution to carry.
	Files, Notices []string
	// Licenses are the SPDX identifiers Classify found in Files, sorted;
	// none when Files is empty or holds no license Classify knows.
	Licenses []string
}

var (
	// licenseFile matches LICENSE, LICENSE.txt, LICENSE-APACHE-2.0, COPYING.md,
	// … (not license.go).
	licenseFile = regexp.MustCompile(`(?i)^(licen[cs]e|copying|unlicense)(-[a-z0-9]+(-[a-z0-9]+|\.[0-9]+)*)?(\.(txt|md|markdown|rst))?$`)
	noticeFile  = regexp.MustCompile(`(?i)^notice(\.[a-z]+)?$`)
)

// Read finds the license and notice files at the root of dir and classifies
// the licenses they hold.
func Read(dir string) (files, notices, licenses []string, err error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("read module directory: %w", err)
	}
	ids := map[string]bool{}
	for _, e := range entries {
		if !e.Type().IsRegular() {
			continue
		}
		switch name := e.Name(); {
		case noticeFile.MatchString(name):
			notices = append(notices, name)
		case licenseFile.MatchString(name):
			files = append(files, name)
			text, err := os.ReadFile(filepath.Join(dir, name))
			if err != nil {
				return nil, nil, nil, fmt.Errorf("read license file: %w", err)
			}
			for _, id := range Classify(string(text)) {
				ids[id] = true
			}
		}
	}
	for id := range ids {
		licenses = append(licenses, id)
	}
	slices.Sort(licenses)
	return files, notices, licenses, nil
}

// Linked lists the modules the packages matched by patterns (go list
// patterns, e.g. ./cmd/...) link on any of platforms, built without cgo
// like the released binaries, sorted by path with the standard library
// (Std) first, each with its licenses read (Read). dir is a directory of the
// main module; env is added to the go command's environment (e.g.
// GOPROXY=off to keep it from the network).
func Linked(ctx context.Context, dir string, env []string, platforms []string, patterns ...string) ([]Module, error) {
	byPath := map[string]Module{}
	for _, p := range platforms {
		goos, goarch, ok := strings.Cut(p, "/")
		if !ok {
			return nil, fmt.Errorf("licenses: platform %q is not GOOS/GOARCH", p)
		}
		platformEnv := append(slices.Clone(env), "GOOS="+goos, "GOARCH="+goarch, "CGO_ENABLED=0")
		out, err := goCmd(ctx, dir, platformEnv, append([]string{"list", "-deps", "-json=Module", "--"}, patterns...)...)
		if err != nil {
			return nil, fmt.Errorf("list the packages of %s on %s: %w", strings.Join(patterns, " "), p, err)
		}
		dec := json.NewDecoder(bytes.NewReader(out))
		for {
			var pkg struct{ Module *goModule }
			if err := dec.Decode(&pkg); errors.Is(err, io.EOF) {
				break
			} else if err != nil {
				return nil, fmt.Errorf("read go list output: %w", err)
			}
			if m := pkg.Module; m != nil {
				if m.Dir == "" && m.Replace != nil {
					m.Dir = m.Replace.Dir
				}
				byPath[m.Path] = Module{Path: m.Path, Version: m.Version, Main: m.Main, Dir: m.Dir}
			}
		}
	}
	goroot, err := goCmd(ctx, dir, env, "env", "GOROOT", "GOVERSION")
	if err != nil {
		return nil, fmt.Errorf("find the standard library: %w", err)
	}
	root, version, _ := strings.Cut(strings.TrimSpace(string(goroot)), "\n")
	mods := []Module{{Path: Std, Version: version, Dir: root}}
	for _, m := range byPath {
		mods = append(mods, m)
	}
	slices.SortFunc(mods[1:], func(a, b Module) int { return strings.Compare(a.Path, b.Path) })
	for i := range mods {
		m := &mods[i]
		if m.Dir == "" {
			return nil, fmt.Errorf("licenses: module %s %s is not in the module cache (go mod download)", m.Path, m.Version)
		}
		if m.Files, m.Notices, m.Licenses, err = Read(m.Dir); err != nil {
			return nil, fmt.Errorf("module %s: %w", m.Path, err)
		}
	}
	return mods, nil
}

// goModule is the part of go list's Module that Linked reads.
type goModule struct {
	Path, Version, Dir string
	Main               bool
	Replace            *goModule
}

func goCmd(ctx context.Context, dir string, env []string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return out, nil
}
