// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package directory

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/a2abus/a2abus/internal/testworld"
	"github.com/a2abus/a2abus/pkg/schema"
	"github.com/a2abus/a2abus/pkg/schema/jsonschema"
)

const rateSchema = `{"type": "object", "required": ["rate"]}`

// compact is rateSchema as the directory stores it.
const compactRate = `{"type":"object","required":["rate"]}`

// Announced input schemas are listed, looked up through the directory and
// the patient resolver, persisted and restored; a schema that does not
// compile is dropped while the card is kept.
func TestInputSchemasAnnouncedPersistedAndRestored(t *testing.T) {
	t.Parallel()
	testworld.EachBus(t, func(t *testing.T, w *testworld.World) {
		file := filepath.Join(t.TempDir(), "known-agents.json")
		name := w.N("Calc")
		calc := newFakeAgent(w.Connect(t), name, "rate", "odd", "plain")
		calc.schemas = map[string]json.RawMessage{"rate": json.RawMessage(rateSchema), "odd": json.RawMessage(`{"type": 5}`)}

		first := newDirectory(t, Options{Bus: w.Connect(t), KnownAgentsFile: file, PersistDebounce: time.Hour})
		errc := make(chan error, 1)
		go func() { errc <- first.Run(context.Background()) }()
		calc.mustAnnounce(t, false)
		waitFor(t, first, name+" online", hasStatus(first, name, StatusOnline))
		check := func(d *Directory, when string) {
			t.Helper()
			for _, lookup := range []func(agent, skill string) (json.RawMessage, bool){
				d.InputSchema, PatientResolver{Directory: d, Wait: time.Second}.InputSchema,
			} {
				if got, ok := lookup(strings.ToUpper(name), "rate"); !ok || string(got) != compactRate {
					t.Errorf("%s: schema of rate = %s, %v; want %s", when, got, ok, compactRate)
				}
				for _, skill := range []string{"odd", "plain", "nope"} {
					if got, ok := lookup(name, skill); ok {
						t.Errorf("%s: skill %s has schema %s, want none", when, skill, got)
					}
				}
				if got, ok := lookup("Unknown", "rate"); ok {
					t.Errorf("%s: an unknown agent has schema %s", when, got)
				}
			}
			if e, _ := d.Lookup(name); !e.HasSkill("odd") || len(e.InputSchemas) != 1 {
				t.Errorf("%s: entry %+v, want every skill and one schema", when, e)
			}
		}
		check(first, "announced")
		if err := first.Close(); err != nil {
			t.Fatalf("Close: %v", err)
		}
		if err := <-errc; err != nil {
			t.Fatalf("Run: %v", err)
		}
		data, err := os.ReadFile(file)
		if err != nil || !strings.Contains(string(data), `"inputSchemas"`) {
			t.Fatalf("known-agents file has no inputSchemas (%v):\n%s", err, data)
		}
		second := newDirectory(t, Options{Bus: w.Connect(t), KnownAgentsFile: file})
		check(second, "restored")
	})
}

// TestSchemasWithoutTheValidator: in a program that registered no JSON
// Schema validator the directory keeps, compacted, the schemas that pass
// the structural checks (a skill of the card, a JSON object), without
// compiling them; with it, one that does not compile is dropped.
func TestSchemasWithoutTheValidator(t *testing.T) {
	skills := card("Calc", "rate", "odd", "list").Skills
	schemas := map[string]json.RawMessage{"rate": json.RawMessage(rateSchema), "odd": json.RawMessage(`{"type": 5}`),
		"list": json.RawMessage(`[1]`), "ghost": json.RawMessage(`{}`)}
	valid, bad := compileSchemas(schemas, skills)
	if len(valid) != 1 || string(valid["rate"]) != compactRate || len(bad) != 3 || !strings.Contains(bad["odd"], "meta-schema") {
		t.Fatalf("with the validator: valid %s, bad %q; want rate only, odd refused by its meta-schema", valid, bad)
	}
	schema.Register(nil) // as in research-agent; the tests link it (schema_link_test.go)
	t.Cleanup(jsonschema.Register)
	valid, bad = compileSchemas(schemas, skills)
	if len(valid) != 2 || string(valid["rate"]) != compactRate || string(valid["odd"]) != `{"type":5}` ||
		len(bad) != 2 || !strings.Contains(bad["list"], "JSON object") || !strings.Contains(bad["ghost"], "not a skill") {
		t.Fatalf("without the validator: valid %s, bad %q; want rate and odd compacted, list and ghost refused", valid, bad)
	}
}

// Schemas go with the card: a newer card without them clears them.
func TestNewerCardReplacesInputSchemas(t *testing.T) {
	r := newRegistry(time.Minute, time.Hour, 0)
	now := time.Now()
	a := announcement("Calc", "i1", now, false, "rate")
	a.InputSchemas = map[string]json.RawMessage{"rate": json.RawMessage(compactRate)}
	r.apply(a, now)
	if e, _ := r.get("calc"); string(e.InputSchemas["rate"]) != compactRate {
		t.Fatalf("schemas = %v", e.InputSchemas)
	}
	r.apply(announcement("Calc", "i1", now.Add(time.Second), false, "rate"), now)
	if e, _ := r.get("calc"); e.InputSchemas != nil {
		t.Fatalf("a newer card without schemas kept %v", e.InputSchemas)
	}
}

func TestWellKnownInputSchemas(t *testing.T) {
	p := writeWellKnown(t, `[{"agentName": "Calc", "description": "d", "version": "1",
  "skills": [{"id": "rate", "name": "Rate", "description": "d"}],
  "inputSchemas": {"rate": {"type": "object",
                            "required": ["rate"]}}}]`)
	agents, err := LoadWellKnown(p)
	if err != nil {
		t.Fatal(err)
	}
	if got := string(agents[0].InputSchemas["rate"]); got != compactRate {
		t.Fatalf("loaded schema %s, want %s", got, compactRate)
	}
	d := newDirectory(t, Options{Bus: embeddedBus(t), WellKnown: agents})
	if got, ok := d.InputSchema("calc", "rate"); !ok || string(got) != compactRate {
		t.Fatalf("well-known schema = %s, %v", got, ok)
	}

	for _, tc := range []struct{ name, schemas, want string }{
		{"not a skill", `{"other": {}}`, `"other" is not a skill of the card`},
		{"not an object", `{"rate": true}`, `must be a JSON object`},
		{"does not compile", `{"rate": {"type": 5}}`, `schema: invalid schema: it breaks the JSON Schema meta-schema: /type`},
		{"external ref", `{"rate": {"$ref": "https://example.com/s.json"}}`, `external references`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := writeWellKnown(t, `[{"agentName": "Calc", "skills": [{"id": "rate"}], "inputSchemas": `+tc.schemas+`}]`)
			_, err := LoadWellKnown(p)
			var we *WellKnownError
			if !errors.As(err, &we) || we.Index != 0 || we.Agent != "Calc" || !strings.Contains(we.Reason, tc.want) {
				t.Fatalf("LoadWellKnown = %v, want a WellKnownError on entry 0 saying %q", err, tc.want)
			}
		})
	}
	// An agent built in code, not loaded from a file, is stored compacted
	// too, and the caller's copy is left as given.
	inCode := wellKnown("Calc", "rate")
	inCode.InputSchemas = map[string]json.RawMessage{"rate": json.RawMessage(rateSchema)}
	given := []WellKnownAgent{inCode}
	d = newDirectory(t, Options{Bus: embeddedBus(t), WellKnown: given})
	if got, ok := d.InputSchema("calc", "rate"); !ok || string(got) != compactRate {
		t.Fatalf("schema of a well-known agent built in code = %s, %v; want %s", got, ok, compactRate)
	}
	if got := string(given[0].InputSchemas["rate"]); got != rateSchema {
		t.Fatalf("the caller's WellKnown was changed to %s", got)
	}

	bad := wellKnown("Calc", "rate")
	bad.InputSchemas = map[string]json.RawMessage{"rate": json.RawMessage(`{"minimum": "zero"}`)}
	if _, err := New(Options{Bus: embeddedBus(t), WellKnown: []WellKnownAgent{bad}}); !errors.Is(err, ErrInvalidOptions) {
		t.Fatalf("New with a bad well-known schema = %v, want ErrInvalidOptions", err)
	}
}

func TestKnownAgentsFileInputSchemas(t *testing.T) {
	const cardA = `{"name": "A", "skills": [{"id": "s"}]}`
	p := writeFile(t, `{"version": 1, "agents": [{"name": "A", "card": `+cardA+`, "inputSchemas": {"s": {"type": "object"}}}]}`)
	stored, err := loadKnownAgents(p, anyFileBytes)
	if err != nil || string(stored[0].InputSchemas["s"]) != `{"type":"object"}` {
		t.Fatalf("load = %+v, %v", stored, err)
	}
	for _, tc := range []struct{ schemas, want string }{
		{`{"t": {}}`, `agents[0] "A": field "inputSchemas[\"t\"]": "t" is not a skill of the card`},
		{`{"s": {"type": 5}}`, `agents[0] "A": inputSchemas["s"]: schema: invalid schema`},
		{`{"s": "object"}`, `agents[0] "A": field "inputSchemas[\"s\"]": must be a JSON object`},
	} {
		p := writeFile(t, `{"version": 1, "agents": [{"name": "A", "card": `+cardA+`, "inputSchemas": `+tc.schemas+`}]}`)
		_, err := loadKnownAgents(p, anyFileBytes)
		if !errors.Is(err, ErrInvalidKnownAgents) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("schemas %s: load = %v, want %q", tc.schemas, err, tc.want)
		}
	}
}
