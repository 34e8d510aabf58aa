// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package deploy

import (
	"bufio"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// instruction is one instruction of a Dockerfile: its keyword (upper case)
// and its arguments, continuation lines joined.
type instruction struct {
	line    int
	keyword string
	args    string
}

// readDockerfile reads the instructions of the Dockerfile at file, comments
// and blank lines left out.
func readDockerfile(t *testing.T, file string) []instruction {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = f.Close() }()
	var out []instruction
	var cur strings.Builder
	start, n := 0, 0
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		n++
		line := strings.TrimSpace(sc.Text())
		if cur.Len() == 0 && (line == "" || strings.HasPrefix(line, "#")) {
			continue
		}
		if cur.Len() == 0 {
			start = n
		}
		if body, ok := strings.CutSuffix(line, "\\"); ok {
			cur.WriteString(body + " ")
			continue
		}
		cur.WriteString(line)
		keyword, args, _ := strings.Cut(cur.String(), " ")
		out = append(out, instruction{line: start, keyword: strings.ToUpper(keyword), args: strings.TrimSpace(args)})
		cur.Reset()
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// pinned is an image reference with a tag and the digest of what it names.
var pinned = regexp.MustCompile(`^[a-z0-9./-]+:[A-Za-z0-9._-]+@sha256:[0-9a-f]{64}$`)

// TestDockerfileIsReproducible holds deploy/Dockerfile to what makes the
// image reproducible and safe to run: every base image pinned by digest,
// the compiler on the build platform cross-compiling for the target one
// (multi-arch without emulation), -trimpath, the version, commit and
// SOURCE_DATE_EPOCH date stamped as the release stamps them, and a final
// stage that runs as a non-root user.
func TestDockerfileIsReproducible(t *testing.T) {
	ins := readDockerfile(t, "Dockerfile")
	var froms, args []string
	var run, user string
	for _, in := range ins {
		switch in.keyword {
		case "FROM":
			f := strings.Fields(in.args)
			platform := ""
			if p, ok := strings.CutPrefix(f[0], "--platform="); ok {
				platform, f = p, f[1:]
			}
			if !pinned.MatchString(f[0]) {
				t.Errorf("line %d: FROM %s is not pinned by digest (image:tag@sha256:…)", in.line, f[0])
			}
			if len(froms) == 0 && platform != "$BUILDPLATFORM" {
				t.Errorf("line %d: the build stage runs on %q, want --platform=$BUILDPLATFORM (it cross-compiles)", in.line, platform)
			}
			froms = append(froms, f[0])
		case "ARG":
			name, _, _ := strings.Cut(in.args, "=")
			args = append(args, name)
		case "RUN":
			if strings.Contains(in.args, "go build") {
				run = in.args
			}
		case "USER":
			user = in.args
		}
	}
	if len(froms) < 2 {
		t.Fatalf("%d stages, want a build stage and a runtime stage", len(froms))
	}
	for _, a := range []string{"TARGETOS", "TARGETARCH", "VERSION", "COMMIT", "SOURCE_DATE_EPOCH"} {
		if !slices.Contains(args, a) {
			t.Errorf("no ARG %s", a)
		}
	}
	for _, want := range []string{"CGO_ENABLED=0", "GOOS=${TARGETOS}", "GOARCH=${TARGETARCH}", "-trimpath",
		"-X main.version=${VERSION}", "-X main.commit=${COMMIT}", "-X main.date=${date}", `"@${SOURCE_DATE_EPOCH}"`, "./cmd/..."} {
		if !strings.Contains(run, want) {
			t.Errorf("the go build step lacks %s:\n%s", want, run)
		}
	}
	uid, _, _ := strings.Cut(user, ":")
	if user == "" || uid == "0" || uid == "root" {
		t.Errorf("the image runs as %q, want a non-root user", user)
	}
	if last := ins[len(ins)-1]; last.keyword != "CMD" && last.keyword != "ENTRYPOINT" {
		t.Errorf("the Dockerfile ends with %s, want the entry point", last.keyword)
	}
	// The Go image is the release go.mod asks for.
	goVersion := goDirective(t, "../go.mod")
	if !strings.HasPrefix(froms[0], "golang:"+goVersion+"-") {
		t.Errorf("the build stage is %s, want golang:%s-… (go.mod's go line)", froms[0], goVersion)
	}
}

// goDirective is the version of the go line of the go.mod at file.
func goDirective(t *testing.T, file string) string {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^go ([0-9.]+)$`).FindSubmatch(b)
	if m == nil {
		t.Fatalf("%s has no go line", file)
	}
	return string(m[1])
}
