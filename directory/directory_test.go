// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package directory

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/a2abus/a2abus/bus"
)

func TestNewValidatesOptions(t *testing.T) {
	b := embeddedBus(t)
	for _, tt := range []struct {
		name string
		opts Options
		want string
	}{
		{"no bus", Options{}, "Bus is required"},
		{"negative stale", Options{Bus: b, StaleAfter: -time.Second}, "StaleAfter must not be negative, got -1s"},
		{"negative forget", Options{Bus: b, ForgetAfter: -1}, "ForgetAfter must not be negative"},
		{"negative debounce", Options{Bus: b, PersistDebounce: -1}, "PersistDebounce must not be negative"},
		{"negative sweep", Options{Bus: b, SweepInterval: -1}, "SweepInterval must not be negative"},
		{"negative skew", Options{Bus: b, MaxClockSkew: -time.Second}, "MaxClockSkew must not be negative, got -1s"},
		{"negative max agents", Options{Bus: b, MaxAgents: -1}, "MaxAgents must not be negative, got -1"},
		{"negative max card bytes", Options{Bus: b, MaxCardBytes: -1}, "MaxCardBytes must not be negative, got -1"},
		{"bad instance id", Options{Bus: b, InstanceID: "a.b"}, `instance id "a.b" must match`},
		{"bad well-known name", Options{Bus: b, WellKnown: []WellKnownAgent{wellKnown("ok"), wellKnown("no dots.")}}, `well-known agent 1: a2a: invalid name`},
		{"duplicate well-known", Options{Bus: b, WellKnown: []WellKnownAgent{wellKnown("Sample"), wellKnown("SAMPLE")}},
			`well-known agent 1 "SAMPLE": duplicate of agent 0 "Sample" (names are case-insensitive)`},
		{"bad well-known skill", Options{Bus: b, WellKnown: []WellKnownAgent{wellKnown("A", "x", "x")}}, `well-known agent 0 "A": skills[1]: duplicate skill id "x"`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			d, err := New(tt.opts)
			if !errors.Is(err, ErrInvalidOptions) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("New = %v, %v; want ErrInvalidOptions containing %q", d, err, tt.want)
			}
		})
	}
}

func TestOptionDefaults(t *testing.T) {
	d := newDirectory(t, Options{Bus: embeddedBus(t)})
	o := d.opts
	if o.StaleAfter != 6*time.Minute || o.ForgetAfter != 24*time.Hour || o.PersistDebounce != time.Second || o.SweepInterval != 30*time.Second || o.InstanceID == "" {
		t.Errorf("defaults = stale %v, forget %v, debounce %v, sweep %v, instance %q", o.StaleAfter, o.ForgetAfter, o.PersistDebounce, o.SweepInterval, o.InstanceID)
	}
	if o.MaxAgents != 1000 || o.MaxCardBytes != 64<<10 || o.MaxClockSkew != time.Minute {
		t.Errorf("defaults = max agents %d, max card bytes %d, max clock skew %v", o.MaxAgents, o.MaxCardBytes, o.MaxClockSkew)
	}
	short := newDirectory(t, Options{Bus: embeddedBus(t), StaleAfter: 40 * time.Second})
	if short.opts.SweepInterval != 10*time.Second {
		t.Errorf("sweep interval for StaleAfter 40s = %v, want 10s", short.opts.SweepInterval)
	}
}

func TestLifecycle(t *testing.T) {
	b := embeddedBus(t)
	d := newDirectory(t, Options{Bus: b})
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() { errc <- d.Run(ctx) }()
	newFakeAgent(b, "Probe").mustAnnounce(t, false)
	waitFor(t, d, "Probe online", hasStatus(d, "Probe", StatusOnline))
	if err := d.Run(ctx); !errors.Is(err, ErrRunning) {
		t.Errorf("second Run = %v, want ErrRunning", err)
	}
	cancel()
	if err := <-errc; err != nil {
		t.Errorf("Run after its context ended = %v, want nil", err)
	}
	for i := range 2 {
		if err := d.Close(); err != nil {
			t.Errorf("Close #%d = %v", i+1, err)
		}
	}
	if err := d.Run(context.Background()); !errors.Is(err, ErrClosed) {
		t.Errorf("Run after Close = %v, want ErrClosed", err)
	}
	if err := d.Query(context.Background()); !errors.Is(err, ErrClosed) {
		t.Errorf("Query after Close = %v, want ErrClosed", err)
	}
	if _, ok := d.Lookup("probe"); !ok {
		t.Error("look-ups stopped working after Close")
	}
}

func TestRunFailsWhenTheBusCloses(t *testing.T) {
	b := embeddedBus(t)
	d := newDirectory(t, Options{Bus: b})
	errc := make(chan error, 1)
	go func() { errc <- d.Run(context.Background()) }()
	publishRouted(t, func(ctx context.Context) error { return newFakeAgent(b, "Probe").announce(ctx, false) })
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-errc:
		if !errors.Is(err, bus.ErrClosed) || !strings.Contains(err.Error(), "directory: consume") {
			t.Errorf("Run = %v, want a consume error wrapping bus.ErrClosed", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return after its bus closed")
	}
}

// The test runs in a synctest bubble: the sweep ticker runs on the bubble's
// clock, so "ten sweeps" below are ten sweeps, however loaded the machine.
func TestSweepRunsWhileTheDirectoryRuns(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := embeddedBus(t)
		clk := newClock()
		d := newDirectory(t, Options{Bus: b, Now: clk.Now, StaleAfter: time.Minute, ForgetAfter: time.Hour, SweepInterval: 5 * time.Millisecond})
		start(t, d)
		f := newFakeAgent(b, "Alpha", "a")
		f.mustAnnounce(t, false)
		waitFor(t, d, "Alpha online", hasStatus(d, "Alpha", StatusOnline))
		clk.Advance(59 * time.Second)
		f.mustAnnounce(t, false) // a periodic announcement keeps it online
		waitFor(t, d, "Alpha seen again", func() bool { e, _ := d.Lookup("Alpha"); return e.LastSeen.Equal(clk.Now()) })
		clk.Advance(59 * time.Second)
		time.Sleep(10 * 5 * time.Millisecond) // ten sweep intervals of the bubble's clock: no real wait
		synctest.Wait()                       // and the tenth sweep is done
		if !hasStatus(d, "Alpha", StatusOnline)() {
			t.Fatal("Alpha went offline less than StaleAfter after its last announcement")
		}
		clk.Advance(time.Second)
		waitFor(t, d, "Alpha offline", hasStatus(d, "Alpha", StatusOffline))
		clk.Advance(time.Hour)
		waitFor(t, d, "Alpha forgotten", func() bool { _, ok := d.Lookup("Alpha"); return !ok })
	})
}

// readKnown returns the agent names of a known-agents file, nil when it does not exist.
func readKnown(t *testing.T, path string) []string {
	t.Helper()
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	var f knownAgentsFile
	if err := json.Unmarshal(data, &f); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	out := []string{}
	for _, a := range f.Agents {
		out = append(out, a.Name)
	}
	return out
}

func TestPersistenceIsDebouncedAndFlushedOnStop(t *testing.T) {
	b := embeddedBus(t)
	file := filepath.Join(t.TempDir(), "known-agents.json")
	d := newDirectory(t, Options{Bus: b, KnownAgentsFile: file, PersistDebounce: time.Hour})
	errc := make(chan error, 1)
	go func() { errc <- d.Run(context.Background()) }()
	newFakeAgent(b, "Alpha").mustAnnounce(t, false)
	waitFor(t, d, "Alpha online", hasStatus(d, "Alpha", StatusOnline))
	if got := readKnown(t, file); got != nil {
		t.Fatalf("file written before the debounce elapsed: %v", got)
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
	if got := readKnown(t, file); !reflect.DeepEqual(got, []string{"Alpha"}) {
		t.Errorf("file after Close lists %v, want [Alpha]", got)
	}
}

func TestPersistenceWritesWhileRunning(t *testing.T) {
	b := embeddedBus(t)
	file := filepath.Join(t.TempDir(), "known-agents.json")
	d := newDirectory(t, Options{Bus: b, KnownAgentsFile: file, PersistDebounce: 10 * time.Millisecond})
	start(t, d)
	newFakeAgent(b, "Alpha").mustAnnounce(t, false)
	waitFor(t, d, "Alpha in the file", func() bool { return reflect.DeepEqual(readKnown(t, file), []string{"Alpha"}) })
	newFakeAgent(b, "Beta").mustAnnounce(t, false)
	waitFor(t, d, "Beta in the file", func() bool { return reflect.DeepEqual(readKnown(t, file), []string{"Alpha", "Beta"}) })
}

func TestPersistenceFailureIsReportedByClose(t *testing.T) {
	b := embeddedBus(t)
	dir := t.TempDir()
	file := filepath.Join(dir, "known-agents.json")
	d := newDirectory(t, Options{Bus: b, KnownAgentsFile: file, PersistDebounce: time.Hour})
	errc := make(chan error, 1)
	go func() { errc <- d.Run(context.Background()) }()
	newFakeAgent(b, "Alpha").mustAnnounce(t, false)
	waitFor(t, d, "Alpha online", hasStatus(d, "Alpha", StatusOnline))
	if err := os.Mkdir(file, 0o755); err != nil { // the rename cannot replace a non-empty folder
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(file, "x"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := d.Close(); err == nil || !strings.Contains(err.Error(), file) {
		t.Errorf("Close = %v, want the failed save naming %s", err, file)
	}
	if err := <-errc; err == nil {
		t.Error("Run = nil, want the failed final save")
	}
}

func TestNewRejectsABadKnownAgentsFile(t *testing.T) {
	file := writeFile(t, `{"version": 1, "agents": [{"name": "A", "card": {"name": "A"}}, {"name": "a", "card": {"name": "a"}}]}`)
	_, err := New(Options{Bus: embeddedBus(t), KnownAgentsFile: file})
	var ke *KnownAgentsError
	if !errors.As(err, &ke) || ke.File != file || ke.Index != 1 || ke.Agent != "a" || !strings.Contains(ke.Reason, "duplicate") {
		t.Fatalf("New = %v, want a *KnownAgentsError naming %s, agents[1] \"a\" and the duplicate", err, file)
	}
}

func TestNewForgetsWhatWentStaleWhileDown(t *testing.T) {
	now := time.Now()
	file := filepath.Join(t.TempDir(), "known-agents.json")
	if err := saveKnownAgents(file, []storedAgent{
		{Name: "Old", Card: *card("Old"), LastSeen: now.Add(-48 * time.Hour), Instances: []Instance{}},
		{Name: "Recent", Card: *card("Recent"), LastSeen: now.Add(-10 * time.Minute), Instances: []Instance{{ID: "r1", LastSeen: now.Add(-10 * time.Minute)}}},
		{Name: "Fresh", Card: *card("Fresh"), LastSeen: now.Add(-time.Minute), Instances: []Instance{{ID: "f1", LastSeen: now.Add(-time.Minute)}}},
	}); err != nil {
		t.Fatal(err)
	}
	d, err := New(Options{Bus: embeddedBus(t), KnownAgentsFile: file})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]Status{}
	for _, e := range d.List(Filter{}) {
		got[e.Name] = e.Status
	}
	if want := map[string]Status{"Recent": StatusOffline, "Fresh": StatusOnline}; !reflect.DeepEqual(got, want) {
		t.Errorf("after load: %v, want %v", got, want)
	}
	if err := d.Close(); err != nil { // never ran: Close flushes what the load changed
		t.Fatal(err)
	}
	if got := readKnown(t, file); !reflect.DeepEqual(got, []string{"Fresh", "Recent"}) {
		t.Errorf("file after Close lists %v, want [Fresh Recent]", got)
	}
}
