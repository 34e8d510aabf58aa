// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package directory

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/a2abus/a2abus/internal/fileread"
	"github.com/a2abus/a2abus/internal/testenv"
	"github.com/a2abus/a2abus/pkg/a2a"
)

// anyFileBytes is a bound the tests' known-agents files keep.
const anyFileBytes = 64 << 20

// fileReaders reads path as each of the files the directory takes from
// outside: the well-known, known-agents and pins files.
func fileReaders(t *testing.T, path string) map[string]func() error {
	return map[string]func() error{
		"well-known file": func() error { _, err := LoadWellKnown(path); return err },
		"known-agents file": func() error {
			_, err := New(Options{Bus: embeddedBus(t), KnownAgentsFile: path})
			return err
		},
		"pins file": func() error {
			_, err := New(Options{Bus: embeddedBus(t), Trust: TrustTOFU, PinsFile: path})
			return err
		},
	}
}

// TestFilesRefuseADevice: the well-known, known-agents and pins files are
// read through fileread: /dev/zero is refused at once, naming it.
func TestFilesRefuseADevice(t *testing.T) {
	const dev = "/dev/zero"
	for what, f := range fileReaders(t, dev) {
		testenv.Refused(t, what+" "+dev, f, fileread.ErrNotRegular, dev)
	}
}

// TestKnownAgentsFileBound: a known-agents file past the bound the options
// give is refused unread, while what the directory writes at its bounds
// (MaxAgents agents with cards of MaxCardBytes) reads back.
func TestKnownAgentsFileBound(t *testing.T) {
	opts := Options{MaxAgents: 3, MaxCardBytes: 16 << 10, WellKnown: []WellKnownAgent{wellKnown("W", "s")}}
	bound := opts.knownAgentsFileBytes()
	dir := t.TempDir()
	big := filepath.Join(dir, "big.json")
	if err := os.WriteFile(big, []byte(`{"version":1,"agents":[]}`+strings.Repeat(" ", int(bound))), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := loadKnownAgents(big, bound)
	if !testenv.WantError(t, fmt.Sprintf("a file over %d bytes", bound), err, fileread.ErrTooLarge, big) {
		t.FailNow()
	}

	var agents []storedAgent
	for i := range opts.MaxAgents + len(opts.WellKnown) {
		name := "Agent" + string(rune('A'+i))
		c := card(name)
		for len(c.Skills) < MaxCardSkills && cardBytes(t, c) < opts.MaxCardBytes-300 {
			id := "skill" + string(rune('a'+len(c.Skills)%26)) + strings.Repeat("x", len(c.Skills)/26)
			c.Skills = append(c.Skills, a2a.AgentSkill{ID: id, Name: id, Description: "<&>\"", Tags: []string{"t<", "u>"}})
		}
		a := storedAgent{Name: name, Card: *c, LastSeen: time.Now().UTC()}
		for j := range 100 {
			a.Instances = append(a.Instances, Instance{ID: fmt.Sprintf("instance-%03d", j), LastSeen: time.Now().UTC()})
		}
		agents = append(agents, a)
	}
	full := filepath.Join(dir, "full.json")
	if err := saveKnownAgents(full, agents); err != nil {
		t.Fatal(err)
	}
	got, err := loadKnownAgents(full, bound)
	if err != nil || len(got) != len(agents) {
		st, _ := os.Stat(full)
		t.Fatalf("a file the directory wrote at its bounds (%d bytes, bound %d): %d agents, %v", st.Size(), bound, len(got), err)
	}
}

func cardBytes(t *testing.T, c *a2a.AgentCard) int {
	t.Helper()
	b, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	return len(b)
}
