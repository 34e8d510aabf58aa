// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package sbom

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"testing"
	"time"
)

// TestThisBinary: the SBOM of the running test binary, read from its file,
// names the program and toolchain and lists exactly the modules the
// binary's own build information says it links (none: this package uses
// only the standard library; the release test in deploy/ checks a2abus's).
func TestThisBinary(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	info, err := Read(exe)
	if err != nil {
		t.Fatal(err)
	}
	self, ok := debug.ReadBuildInfo()
	if !ok {
		t.Fatal("the test binary has no build information")
	}
	at := time.Date(2026, 11, 26, 18, 3, 0, 0, time.UTC)
	doc, err := Build("sbom.test", "", info, at).Marshal()
	if err != nil {
		t.Fatal(err)
	}
	var bom BOM
	if err := json.Unmarshal(doc, &bom); err != nil {
		t.Fatalf("the document is not JSON: %v", err)
	}
	if bom.BOMFormat != "CycloneDX" || bom.SpecVersion != "1.5" || bom.Metadata.Timestamp != "2026-11-26T18:03:00Z" ||
		bom.Metadata.Component.Name != "sbom.test" || bom.Metadata.Component.Type != "application" {
		t.Errorf("header: %+v", bom.Metadata)
	}
	var got, want []string
	for _, c := range bom.Components {
		got = append(got, c.Name+"@"+c.Version)
		if c.Type != "library" || c.PURL == "" || len(c.Hashes) != 1 || len(c.Hashes[0].Content) != 64 {
			t.Errorf("component %+v: want a library with a purl and a SHA-256", c)
		}
	}
	for _, d := range self.Deps {
		want = append(want, d.Path+"@"+d.Version)
	}
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("components\n %v\nwant the linked modules\n %v", got, want)
	}
	props := bom.Metadata.Component.Properties
	for _, p := range []Property{{Name: "go:path", Value: self.Path}, {Name: "go:version", Value: self.GoVersion}} {
		if !slices.Contains(props, p) {
			t.Errorf("application properties %v lack %v", props, p)
		}
	}
}

func TestBuild(t *testing.T) {
	info := &debug.BuildInfo{
		GoVersion: "go1.26.8",
		Path:      "github.com/a2abus/a2abus/cmd/a2abus",
		Main:      debug.Module{Path: "github.com/a2abus/a2abus", Version: "(devel)"},
		Deps: []*debug.Module{
			{Path: "go.uber.org/zap", Version: "v1.27.0", Sum: "h1:aJMhYGrd5QSmlpLMr2MftRKl7t8J8PTZPA732ud/XR8="},
			{Path: "github.com/BurntSushi/toml", Version: "v1.4.0+incompatible", Sum: "h1:kuoIxZQy2WRRk1pttg9asf+WVv6tWQuBNVmK8+nqPr0="},
			{Path: "example.com/old", Version: "v1.0.0", Replace: &debug.Module{Path: "example.com/new", Version: "v1.1.0", Sum: "h1:bad"}},
			{Path: "example.com/local", Version: "v0.0.0", Replace: &debug.Module{Path: "../local"}},
		},
		Settings: []debug.BuildSetting{
			{Key: "-ldflags", Value: "-s -w -X main.version=v0.3.0+meta -X=main.commit=abc -X main.date=2026-11-26T18:03:00Z"},
			{Key: "GOOS", Value: "linux"},
		},
	}
	if v := Build("a2abus", "v1.0.0", info, time.Time{}).Metadata.Component.Version; v != "v1.0.0" {
		t.Errorf("the version given is %q in the document", v)
	}
	bom := Build("a2abus", "", info, time.Time{})
	if bom.Metadata.Timestamp != "" {
		t.Errorf("timestamp %q without a time", bom.Metadata.Timestamp)
	}
	app := bom.Metadata.Component
	if app.Version != "v0.3.0+meta" || app.PURL != "pkg:golang/github.com/a2abus/a2abus@v0.3.0%2Bmeta?type=module" {
		t.Errorf("application %s %s", app.Version, app.PURL)
	}
	if !slices.Contains(app.Properties, Property{Name: "go:build:GOOS", Value: "linux"}) {
		t.Errorf("application properties %v lack GOOS", app.Properties)
	}
	if v := Stamped(info, "main.commit"); v != "abc" {
		t.Errorf("Stamped(main.commit) = %q, want abc (the -X=name=value form)", v)
	}
	if v := Stamped(info, "main.nothing"); v != "" {
		t.Errorf("Stamped(main.nothing) = %q", v)
	}
	byName := map[string]Component{}
	var names []string
	for _, c := range bom.Components {
		byName[c.Name] = c
		names = append(names, c.Name)
	}
	if !slices.IsSorted(names) {
		t.Errorf("components not sorted: %v", names)
	}
	toml := byName["github.com/BurntSushi/toml"]
	if toml.PURL != "pkg:golang/github.com/BurntSushi/toml@v1.4.0%2Bincompatible?type=module" ||
		len(toml.Hashes) != 1 || toml.Hashes[0].Content != "92ea08c59432d96451935a6db60f5ab1ff9656fead590b8135598af3e9ea3ebd" {
		t.Errorf("toml: %+v", toml)
	}
	replaced := byName["example.com/new"]
	if replaced.Version != "v1.1.0" || replaced.Hashes != nil ||
		!slices.Contains(replaced.Properties, Property{Name: "go:replaces", Value: "example.com/old@v1.0.0"}) {
		t.Errorf("a replaced module is described by its replacement, naming what it replaces (a bad sum gives no hash): %+v", replaced)
	}
	if local := byName["../local"]; local.PURL != "" || local.BOMRef != "local:../local" {
		t.Errorf("a directory replacement has no purl: %+v", local)
	}
}

func TestReadRefusesWhatIsNotAGoBinary(t *testing.T) {
	file := filepath.Join(t.TempDir(), "notes.txt")
	if err := os.WriteFile(file, []byte("not a program"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Read(file); !errors.Is(err, ErrNoBuildInfo) {
		t.Errorf("Read(text file) = %v, want ErrNoBuildInfo", err)
	}
}
