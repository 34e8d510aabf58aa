// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package deploy

import (
	"archive/tar"
	"bufio"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/a2abus/a2abus/internal/licenses"
	"github.com/a2abus/a2abus/internal/sbom"
)

// release runs scripts/release.sh with env added to its environment and
// returns its combined output.
func release(t *testing.T, env ...string) (string, error) {
	t.Helper()
	cmd := exec.Command("bash", "../scripts/release.sh")
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// TestReleaseMatrix: the script builds by default every command under cmd/
// for every platform the license check covers (licenses.Platforms).
func TestReleaseMatrix(t *testing.T) {
	script, err := os.ReadFile("../scripts/release.sh")
	if err != nil {
		t.Fatal(err)
	}
	defaults := func(name string) []string {
		m := regexp.MustCompile(`(?m)^` + name + `=\$\{` + name + `:-([^}]*)\}$`).FindSubmatch(script)
		if m == nil {
			t.Fatalf("release.sh sets no default %s", name)
		}
		return strings.Fields(string(m[1]))
	}
	if got := defaults("PLATFORMS"); !slices.Equal(got, licenses.Platforms) {
		t.Errorf("release.sh builds for %v, want licenses.Platforms %v", got, licenses.Platforms)
	}
	entries, err := os.ReadDir("../cmd")
	if err != nil {
		t.Fatal(err)
	}
	var cmds []string
	for _, e := range entries {
		if e.IsDir() {
			cmds = append(cmds, e.Name())
		}
	}
	got := defaults("BINARIES")
	slices.Sort(got)
	if !slices.Equal(got, cmds) {
		t.Errorf("release.sh builds %v, want every command of cmd/ %v", got, cmds)
	}
}

// TestReleaseRefusesBadInput: a version that is not a semantic version tag,
// a date that is not seconds, an unknown command, a bad platform and a DIST
// that holds other files are refused, naming what was wrong, before anything
// is built.
func TestReleaseRefusesBadInput(t *testing.T) {
	full := t.TempDir()
	if err := os.WriteFile(filepath.Join(full, "keep"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		env  []string
		want string
	}{
		{"version", []string{"VERSION=1.2"}, "version 1.2 is not a semantic version tag"},
		{"command", []string{"VERSION=v1.2.3", "BINARIES=a2abus nope"}, "no command cmd/nope"},
		{"platform", []string{"VERSION=v1.2.3", "PLATFORMS=linux/amd64 linux"}, "platform linux is not GOOS/GOARCH"},
		{"date", []string{"VERSION=v1.2.3", "SOURCE_DATE_EPOCH=soon"}, "SOURCE_DATE_EPOCH=soon is not seconds since 1970"},
		{"dist", []string{"VERSION=v1.2.3", "DIST=" + full}, "DIST=" + full + " is not empty"},
	} {
		out, err := release(t, c.env...)
		var exit *exec.ExitError
		if !errors.As(err, &exit) || !strings.Contains(out, "release: "+c.want) {
			t.Errorf("%s: %v, output %q; want a failure naming %q", c.name, err, out, c.want)
		}
	}
}

// TestReleaseStampsChecksumsAndSBOM builds the release of a2abus for this
// machine's platform only (the full matrix is make release's) and checks
// what it wrote: the archive and its files, the version, commit and date
// stamped in the binary, every checksum, and an SBOM that lists exactly the
// modules the binary links.
func TestReleaseStampsChecksumsAndSBOM(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a2abus")
	}
	const (
		version = "v9.8.7-rc.1+test"
		commit  = "0123456789ab"
		epoch   = "1764180180"
		date    = "2025-11-26T18:03:00Z"
	)
	dist := filepath.Join(t.TempDir(), "dist")
	platform := runtime.GOOS + "_" + runtime.GOARCH
	if out, err := release(t, "DIST="+dist, "PLATFORMS="+runtime.GOOS+"/"+runtime.GOARCH, "BINARIES=a2abus",
		"VERSION="+version, "COMMIT="+commit, "SOURCE_DATE_EPOCH="+epoch); err != nil {
		t.Fatalf("release.sh: %v\n%s", err, out)
	}
	archive := "a2abus_" + version + "_" + platform + ".tar.gz"
	bom := "a2abus_" + version + "_" + platform + ".cdx.json"
	entries, err := os.ReadDir(dist)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if want := []string{"SHA256SUMS", bom, archive}; !slices.Equal(names, want) {
		t.Fatalf("dist holds %v, want %v", names, want)
	}

	// SHA256SUMS: one right checksum for every other file.
	sums, err := os.ReadFile(filepath.Join(dist, "SHA256SUMS"))
	if err != nil {
		t.Fatal(err)
	}
	var summed []string
	sc := bufio.NewScanner(strings.NewReader(string(sums)))
	for sc.Scan() {
		sum, file, ok := strings.Cut(sc.Text(), "  ")
		b, err := os.ReadFile(filepath.Join(dist, file))
		if !ok || err != nil {
			t.Fatalf("SHA256SUMS line %q: %v", sc.Text(), err)
		}
		if h := sha256.Sum256(b); hex.EncodeToString(h[:]) != sum {
			t.Errorf("SHA256SUMS gives %s a wrong checksum", file)
		}
		summed = append(summed, file)
	}
	if want := []string{archive, bom}; !slices.Equal(summed, want) {
		t.Errorf("SHA256SUMS lists %v, want %v", summed, want)
	}

	bin := untar(t, filepath.Join(dist, archive), strings.TrimSuffix(archive, ".tar.gz"), epoch)

	// The build information: static, trimmed, stamped.
	info, err := sbom.Read(bin)
	if err != nil {
		t.Fatal(err)
	}
	settings := map[string]string{}
	for _, s := range info.Settings {
		settings[s.Key] = s.Value
	}
	for k, v := range map[string]string{"CGO_ENABLED": "0", "-trimpath": "true", "GOOS": runtime.GOOS, "GOARCH": runtime.GOARCH} {
		if settings[k] != v {
			t.Errorf("built with %s=%q, want %q", k, settings[k], v)
		}
	}
	// go records no -ldflags in a -trimpath build: the binary says what was stamped.
	out, err := exec.Command(bin, "version").Output()
	if want := "a2abus version " + version + " (commit " + commit + ", built " + date + ", " + info.GoVersion + ", " +
		runtime.GOOS + "/" + runtime.GOARCH + ")\n"; err != nil || string(out) != want {
		t.Errorf("a2abus version: %v, %q, want %q", err, out, want)
	}

	// The SBOM: this binary, and exactly the modules `go version -m` lists.
	raw, err := os.ReadFile(filepath.Join(dist, bom))
	if err != nil {
		t.Fatal(err)
	}
	var doc sbom.BOM
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatalf("%s: %v", bom, err)
	}
	if c := doc.Metadata.Component; doc.BOMFormat != "CycloneDX" || c.Name != "a2abus" || c.Version != version || doc.Metadata.Timestamp != date {
		t.Errorf("SBOM describes %s %s at %s (%s), want a2abus %s at %s", c.Name, c.Version, doc.Metadata.Timestamp, doc.BOMFormat, version, date)
	}
	var listed []string
	for _, c := range doc.Components {
		listed = append(listed, c.Name+" "+c.Version)
	}
	slices.Sort(listed)
	linked := goVersionDeps(t, bin)
	if !slices.Equal(listed, linked) {
		t.Errorf("the SBOM lists\n %v\nbut go version -m says the binary links\n %v", listed, linked)
	}
	for _, m := range []string{"github.com/rabbitmq/amqp091-go", "github.com/redis/go-redis/v9", "go.uber.org/zap"} {
		if !slices.ContainsFunc(listed, func(s string) bool { return strings.HasPrefix(s, m+" ") }) {
			t.Errorf("the SBOM does not list %s", m)
		}
	}
}

// untar checks the release archive (one folder, dir, holding a2abus and the
// LICENSE, README.md and CHANGELOG.md of the repository, every entry at the
// commit's time, owned by root) and returns the path of its a2abus,
// extracted.
func untar(t *testing.T, archive, dir, epoch string) string {
	t.Helper()
	f, err := os.Open(archive)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = f.Close() }()
	gz, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(gz)
	bin := filepath.Join(t.TempDir(), "a2abus")
	var names []string
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		names = append(names, h.Name)
		if mt := h.ModTime.Unix(); h.Uid != 0 || h.Gid != 0 || strconv.FormatInt(mt, 10) != epoch {
			t.Errorf("%s: uid %d, gid %d, time %d; want root's, at %s", h.Name, h.Uid, h.Gid, mt, epoch)
		}
		base := strings.TrimPrefix(h.Name, dir+"/")
		switch base {
		case "a2abus":
			writeFile(t, bin, tr, 0o755)
		case "LICENSE", "README.md", "CHANGELOG.md":
			got, _ := io.ReadAll(tr)
			want, err := os.ReadFile("../" + base)
			if err != nil || string(got) != string(want) {
				t.Errorf("the archive's %s is not the repository's (%v)", base, err)
			}
		}
	}
	want := []string{dir + "/", dir + "/CHANGELOG.md", dir + "/LICENSE", dir + "/README.md", dir + "/a2abus"}
	if !slices.Equal(names, want) {
		t.Fatalf("the archive holds %v, want %v", names, want)
	}
	return bin
}

func writeFile(t *testing.T, path string, r io.Reader, mode os.FileMode) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, mode)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(f, r); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// goVersionDeps lists the modules `go version -m` says bin links, as
// "path version" (the replacement's when a module is replaced), sorted.
func goVersionDeps(t *testing.T, bin string) []string {
	t.Helper()
	out, err := exec.Command("go", "version", "-m", bin).Output()
	if err != nil {
		t.Fatalf("go version -m: %v", err)
	}
	byPath := map[string]string{}
	var last string
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.Fields(line)
		switch {
		case len(f) >= 3 && f[0] == "dep":
			last = f[1]
			byPath[last] = f[1] + " " + f[2]
		case len(f) >= 2 && f[0] == "=>":
			version := ""
			if len(f) >= 3 && !strings.HasPrefix(f[2], "h1:") {
				version = f[2]
			}
			byPath[last] = f[1] + " " + version
		}
	}
	deps := slices.Collect(maps.Values(byPath))
	slices.Sort(deps)
	return deps
}
