// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package deploy

import (
	"bytes"
	"net/url"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/a2abus/a2abus/internal/cliutil"
)

// composeFile is the part of the Compose specification compose.yaml uses;
// anything else in it is an error (decoded strictly).
type composeFile struct {
	Name     string                    `yaml:"name"`
	Services map[string]composeService `yaml:"services"`
}

type composeService struct {
	Image       string   `yaml:"image"`
	Ports       []string `yaml:"ports"`
	Healthcheck struct {
		Test        []string `yaml:"test"`
		Interval    string   `yaml:"interval"`
		Timeout     string   `yaml:"timeout"`
		Retries     int      `yaml:"retries"`
		StartPeriod string   `yaml:"start_period"`
	} `yaml:"healthcheck"`
}

// pinnedTag is an image with a full release tag (major.minor.patch and an
// optional variant), never latest or a moving major.
var pinnedTag = regexp.MustCompile(`^[a-z0-9./-]+:[0-9]+\.[0-9]+\.[0-9]+(-[a-z0-9-]+)?$`)

// TestComposeServesTheDefaults: compose.yaml starts RabbitMQ and Redis, at
// pinned tags, with health checks, published on 127.0.0.1 at the host and
// port of the URLs every command falls back to (cliutil.LocalAMQPURL,
// cliutil.LocalRedisURL); docs/install.md's one-line docker run commands
// start the same images on the same ports.
func TestComposeServesTheDefaults(t *testing.T) {
	raw, err := os.ReadFile("../compose.yaml")
	if err != nil {
		t.Fatal(err)
	}
	dec := yaml.NewDecoder(bytes.NewReader(raw))
	dec.KnownFields(true)
	var c composeFile
	if err := dec.Decode(&c); err != nil {
		t.Fatalf("compose.yaml: %v", err)
	}
	install, err := os.ReadFile("../docs/install.md")
	if err != nil {
		t.Fatal(err)
	}
	var runs []string
	for _, line := range strings.Split(string(install), "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "docker run ") {
			runs = append(runs, strings.Fields(line)...)
			runs = append(runs, "\n")
		}
	}
	want := map[string]string{"rabbitmq": cliutil.LocalAMQPURL, "redis": cliutil.LocalRedisURL}
	var names []string
	for name := range c.Services {
		names = append(names, name)
	}
	slices.Sort(names)
	if !slices.Equal(names, []string{"rabbitmq", "redis"}) {
		t.Errorf("services %v, want rabbitmq and redis", names)
	}
	for name, local := range want {
		s := c.Services[name]
		u, err := url.Parse(local)
		if err != nil {
			t.Fatal(err)
		}
		published := u.Hostname() + ":" + u.Port() + ":" + u.Port()
		if !slices.Contains(s.Ports, published) {
			t.Errorf("%s publishes %v, want %s (the default %s)", name, s.Ports, published, local)
		}
		for _, p := range s.Ports {
			if !strings.HasPrefix(p, "127.0.0.1:") {
				t.Errorf("%s publishes %s beyond 127.0.0.1", name, p)
			}
		}
		if !pinnedTag.MatchString(s.Image) {
			t.Errorf("%s image %q: want a pinned release tag (name:X.Y.Z[-variant])", name, s.Image)
		}
		if h := s.Healthcheck; len(h.Test) < 2 || h.Test[0] != "CMD" || h.Retries < 1 || h.Interval == "" {
			t.Errorf("%s health check %+v: want a CMD test, an interval and retries", name, h)
		}
		// docs/install.md: docker run … -p PORT … IMAGE, one line a server.
		line := docRunLine(runs, s.Image)
		if line == nil {
			t.Errorf("docs/install.md has no `docker run … %s` line", s.Image)
			continue
		}
		for _, p := range s.Ports {
			if !slices.Contains(line, p) {
				t.Errorf("docs/install.md's docker run of %s does not publish %s as compose.yaml does: %v", s.Image, p, line)
			}
		}
	}
}

// docRunLine is the docker run line (its words) naming image; nil if none.
func docRunLine(words []string, image string) []string {
	for len(words) > 0 {
		end := slices.Index(words, "\n")
		if slices.Contains(words[:end], image) {
			return words[:end]
		}
		words = words[end+1:]
	}
	return nil
}
