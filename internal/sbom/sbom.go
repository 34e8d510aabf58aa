// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

// Package sbom describes a Go binary as a CycloneDX 1.5 software bill of
// materials, read from the build information the Go linker embeds in it
// (what `go version -m` prints): the program, its version and build
// settings, and every module it links with its version and checksum.
package sbom

import (
	"debug/buildinfo"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"runtime/debug"
	"slices"
	"strings"
	"time"
)

// ErrNoBuildInfo is wrapped by Read's error when the file is not a Go
// binary with build information.
var ErrNoBuildInfo = errors.New("sbom: no Go build information")

// SpecVersion is the CycloneDX version of the documents Build makes.
const SpecVersion = "1.5"

// BOM is a CycloneDX document: the fields Build fills.
type BOM struct {
	BOMFormat   string      `json:"bomFormat"`
	SpecVersion string      `json:"specVersion"`
	Version     int         `json:"version"`
	Metadata    Metadata    `json:"metadata"`
	Components  []Component `json:"components"`
}

// Metadata names the binary the document describes, and when and by what it
// was made.
type Metadata struct {
	Timestamp string    `json:"timestamp,omitempty"`
	Tools     Tools     `json:"tools"`
	Component Component `json:"component"`
}

// Tools lists the programs that made the document.
type Tools struct {
	Components []Component `json:"components"`
}

// Component is the binary (an application) or a module it links (a library).
type Component struct {
	BOMRef     string     `json:"bom-ref,omitempty"`
	Type       string     `json:"type"`
	Name       string     `json:"name"`
	Version    string     `json:"version,omitempty"`
	PURL       string     `json:"purl,omitempty"`
	Hashes     []Hash     `json:"hashes,omitempty"`
	Properties []Property `json:"properties,omitempty"`
}

// Hash is a checksum of a component: for a module, the SHA-256 of its
// go.sum h1: hash, in hex.
type Hash struct {
	Alg     string `json:"alg"`
	Content string `json:"content"`
}

// Property is a name and value CycloneDX has no field for (a build setting,
// the module a replacement stands for).
type Property struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// Read returns the build information of the Go binary at file.
func Read(file string) (*debug.BuildInfo, error) {
	info, err := buildinfo.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("%w in %q: %w", ErrNoBuildInfo, file, err)
	}
	return info, nil
}

// Build describes the binary named name whose build information is info:
// its version is version, else the one the -ldflags build setting stamps
// with -X main.version (go omits that setting from a -trimpath build, so a
// release passes its version), else the main module's; its properties the build settings (GOOS, GOARCH,
// CGO_ENABLED, -ldflags, …), its components every module it links, sorted
// by path. at is the document's timestamp (the zero time leaves it out, so
// the same binary gives the same bytes).
func Build(name, version string, info *debug.BuildInfo, at time.Time) BOM {
	if version == "" {
		version = StampedVersion(info)
	}
	app := Component{
		BOMRef:  purl(info.Main.Path, version),
		Type:    "application",
		Name:    name,
		Version: version,
		PURL:    purl(info.Main.Path, version),
		Properties: []Property{
			{Name: "go:path", Value: info.Path},
			{Name: "go:module", Value: info.Main.Path},
			{Name: "go:version", Value: info.GoVersion},
		},
	}
	for _, s := range info.Settings {
		app.Properties = append(app.Properties, Property{Name: "go:build:" + s.Key, Value: s.Value})
	}
	bom := BOM{
		BOMFormat:   "CycloneDX",
		SpecVersion: SpecVersion,
		Version:     1,
		Metadata: Metadata{
			Tools:     Tools{Components: []Component{{Type: "application", Name: "a2abus-sbom", Version: version}}},
			Component: app,
		},
		Components: []Component{},
	}
	if !at.IsZero() {
		bom.Metadata.Timestamp = at.UTC().Format(time.RFC3339)
	}
	for _, dep := range info.Deps {
		bom.Components = append(bom.Components, module(dep))
	}
	slices.SortFunc(bom.Components, func(a, b Component) int { return strings.Compare(a.Name, b.Name) })
	return bom
}

// Marshal encodes bom as indented JSON ending in a new line.
func (bom BOM) Marshal() ([]byte, error) {
	out, err := json.MarshalIndent(bom, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("sbom: encode: %w", err)
	}
	return append(out, '\n'), nil
}

// StampedVersion is the version set with -ldflags "-X main.version=…" when
// the binary was built, else its main module's version ("(devel)" for a
// build from a working tree).
func StampedVersion(info *debug.BuildInfo) string {
	if v := Stamped(info, "main.version"); v != "" {
		return v
	}
	return info.Main.Version
}

// Stamped is the value the -ldflags build setting of info gives symbol with
// -X (symbol=value or symbol value); "" when it sets none.
func Stamped(info *debug.BuildInfo, symbol string) string {
	for _, s := range info.Settings {
		if s.Key != "-ldflags" {
			continue
		}
		fields := strings.Fields(s.Value)
		for i := 0; i < len(fields); i++ {
			f := fields[i]
			switch {
			case f == "-X" && i+1 < len(fields):
				i++
				if v, ok := strings.CutPrefix(fields[i], symbol+"="); ok {
					return v
				}
			case strings.HasPrefix(f, "-X="):
				if v, ok := strings.CutPrefix(f[len("-X="):], symbol+"="); ok {
					return v
				}
			}
		}
	}
	return ""
}

// module is dep as a library component: a replaced module is described by
// its replacement (the code linked), naming the module it replaces.
func module(dep *debug.Module) Component {
	m := dep
	var props []Property
	if dep.Replace != nil {
		m = dep.Replace
		props = append(props, Property{Name: "go:replaces", Value: dep.Path + "@" + dep.Version})
	}
	c := Component{Type: "library", Name: m.Path, Version: m.Version, Properties: props}
	if m.Version != "" {
		c.PURL = purl(m.Path, m.Version)
		c.BOMRef = c.PURL
	} else {
		c.BOMRef = "local:" + m.Path // a replacement by a directory has no version
	}
	if h, ok := sumHex(m.Sum); ok {
		c.Hashes = []Hash{{Alg: "SHA-256", Content: h}}
	}
	return c
}

// purl is the package URL of a Go module (pkg:golang/PATH@VERSION), each
// part escaped.
func purl(modPath, version string) string {
	segs := strings.Split(modPath, "/")
	for i, s := range segs {
		segs[i] = escape(s)
	}
	p := "pkg:golang/" + strings.Join(segs, "/")
	if version != "" && version != "(devel)" {
		p += "@" + escape(version)
	}
	return p + "?type=module"
}

// escape percent-encodes every byte of s but letters, digits and . - _ ~
// (a version's + is %2B, as the purl specification asks).
func escape(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte(".-_~", c) >= 0 {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return b.String()
}

// sumHex turns a go.sum "h1:" checksum (base64 of a SHA-256) into hex.
func sumHex(sum string) (string, bool) {
	b64, ok := strings.CutPrefix(sum, "h1:")
	if !ok {
		return "", false
	}
	raw, err := base64.StdEncoding.DecodeString(b64)
	if err != nil || len(raw) != 32 {
		return "", false
	}
	return hex.EncodeToString(raw), true
}
